//! The `#line` mapping of the generated source: every line maps where an NVRTC error on it should
//! point. A line written for a user statement maps to the statement's line in the Rust file; any
//! other line (generated code: a schedule's loops, reductions, fix-up plumbing, the entry points)
//! maps to its own line in the generated source. [`Cx::line`] writes the directive each line
//! needs, so no schedule can leave generated code under a user statement's mapping.

use super::{Cx, Kernel};

/// Where the compiler takes a line of the generated source to come from: the `#line` mapping in
/// force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Presumed {
    /// Its own line in the generated source (no directive yet, or a generated-code one).
    Generated,
    /// This line of the user's Rust file.
    Rust(usize),
}

impl Cx<'_> {
    /// The next line written comes from `line` of the user's Rust file (the line of the tile loop,
    /// or of an atom loop a schedule lowers with the tile loop); the lines after it are generated
    /// code again.
    pub fn line_directive(&mut self, line: usize) {
        self.next_line_from = Some(line);
        self.force_rust_directive = true;
    }

    /// Emits a user statement's text with `write`: its lines map to the statement's Rust line,
    /// the first with a directive of its own. An atom loop is lowered by the schedule: its lines
    /// are generated code but for the loop head, which holds the user's tile expression.
    pub(super) fn user_statement<T>(
        &mut self,
        line: usize,
        is_atom_loop: bool,
        write: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let (outer, outer_head) = if is_atom_loop {
            (self.statement.take(), self.loop_head_from.replace(line))
        } else {
            (self.statement.replace(line), self.loop_head_from.take())
        };
        self.force_rust_directive = true;
        let result = write(self);
        self.statement = outer;
        self.loop_head_from = outer_head;
        self.force_rust_directive = false;
        result
    }

    /// Writes the `#line` directive the next line needs to be mapped to `from`, where the presumed
    /// mapping differs (or a user statement starts), and advances the presumed mapping past it.
    pub(super) fn map_next_line(&mut self, from: Presumed) {
        let force = std::mem::take(&mut self.force_rust_directive);
        match from {
            Presumed::Rust(line) => {
                if force || self.presumed != from {
                    let file = self.kernel.file.replace('\\', "/").replace('"', "'");
                    self.out.push_str(&format!("#line {line} \"{file}\"\n"));
                }
                self.presumed = Presumed::Rust(line + 1);
            }
            Presumed::Generated => {
                // A directive for Rust waits for the next line from Rust.
                self.force_rust_directive = force;
                if self.presumed != Presumed::Generated {
                    self.out.push_str(GENERATED_LINE_MARK);
                    self.out.push('\n');
                }
                self.presumed = Presumed::Generated;
            }
        }
    }

    /// Writes generated text as it is (no indentation), after the directive it needs.
    pub(super) fn raw_generated(&mut self, text: &str) {
        self.map_next_line(Presumed::Generated);
        self.out.push_str(text);
    }
}

/// The file the `#line` directives of generated code name: the kernel's source, under the name
/// the runtime gives it (`<kernel>.cu`, see `loops::compile`).
pub(super) fn generated_file(kernel: &Kernel) -> String {
    format!("{}.cu", kernel.name)
}

/// What [`Cx`] writes where generated code follows the user's code: a `#line` naming the generated
/// source itself, at a line only the whole source knows ([`resolve_generated_lines`]).
const GENERATED_LINE_MARK: &str = "#line loops_generated";

/// `source` with each [`GENERATED_LINE_MARK`] made `#line <n> "<file>"`, `n` the line after it.
pub(super) fn resolve_generated_lines(source: &str, file: &str) -> String {
    let mut out = String::with_capacity(source.len() + 1024);
    for (index, line) in source.split_inclusive('\n').enumerate() {
        if line.trim_end_matches('\n') == GENERATED_LINE_MARK {
            // `index` is 0-based: this directive is line `index + 1`, the next `index + 2`.
            out.push_str(&format!("#line {} \"{file}\"\n", index + 2));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// The snapshot view of a kernel's own code ([`super::Emitted::snapshot_view`]): `code` without its
/// `#line` directives, which depend on where the kernel sits in its Rust file and on the prelude's
/// length.
pub(super) fn snapshot_view(code: &str) -> String {
    code.split_inclusive('\n')
        .filter(|line| !line.starts_with("#line "))
        .collect()
}
