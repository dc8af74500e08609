//! The mutations of the front-end fuzz, on the syn tree of a kernel function and on its tokens.
//!
//! A kernel is carried as text between mutations: each mutation parses it, changes one node (or
//! token) picked by number, and prints it back with a line per statement, so that the spans the
//! expansion sees, and the `#line` directives of the CUDA it writes, have real line numbers, and
//! a failure prints an input that can be pasted into a test. A mutation that does not apply (no
//! node of its kind, or a replacement that does not parse) leaves the kernel as it is.

use proc_macro2::{Delimiter, Group, Spacing, TokenStream, TokenTree};
use proptest::prelude::*;
use quote::ToTokens;

use super::pools::*;

/// One change to a kernel. The numbers pick the node (the n-th of its kind, modulo their count)
/// and the replacement (an index into a pool of pools.rs, modulo its length).
#[derive(Clone, Debug)]
pub enum Mutation {
    DeleteStmt {
        block: u32,
        at: u32,
    },
    DuplicateStmt {
        block: u32,
        at: u32,
    },
    SwapStmts {
        block: u32,
        first: u32,
        second: u32,
    },
    ReplaceOperator {
        node: u32,
        op: u32,
    },
    ReplaceLiteral {
        node: u32,
        with: u32,
    },
    /// A name in an expression, by another: one in scope, an unknown one, a reserved or a CUDA one.
    ReplaceName {
        node: u32,
        with: u32,
    },
    /// A bound name (parameter, `let`, loop variable) and every use of it, consistently.
    RenameBinding {
        binding: u32,
        with: u32,
    },
    ReplaceMethod {
        node: u32,
        with: u32,
    },
    WrapStmt {
        block: u32,
        at: u32,
        wrap: u32,
    },
    InsertStmt {
        block: u32,
        at: u32,
        stmt: u32,
    },
    ReplaceType {
        node: u32,
        with: u32,
    },
    WrapExpr {
        node: u32,
        wrap: u32,
    },
    /// Any identifier token (keywords' places included) by another.
    ReplaceIdentToken {
        token: u32,
        with: u32,
    },
    DeleteToken {
        token: u32,
    },
    DuplicateToken {
        token: u32,
    },
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    use Mutation::*;
    let n = || any::<u32>();
    prop_oneof![
        3 => (n(), n()).prop_map(|(block, at)| DeleteStmt { block, at }),
        2 => (n(), n()).prop_map(|(block, at)| DuplicateStmt { block, at }),
        2 => (n(), n(), n()).prop_map(|(block, first, second)| SwapStmts { block, first, second }),
        4 => (n(), n()).prop_map(|(node, op)| ReplaceOperator { node, op }),
        4 => (n(), n()).prop_map(|(node, with)| ReplaceLiteral { node, with }),
        4 => (n(), n()).prop_map(|(node, with)| ReplaceName { node, with }),
        3 => (n(), n()).prop_map(|(binding, with)| RenameBinding { binding, with }),
        3 => (n(), n()).prop_map(|(node, with)| ReplaceMethod { node, with }),
        3 => (n(), n(), n()).prop_map(|(block, at, wrap)| WrapStmt { block, at, wrap }),
        5 => (n(), n(), n()).prop_map(|(block, at, stmt)| InsertStmt { block, at, stmt }),
        3 => (n(), n()).prop_map(|(node, with)| ReplaceType { node, with }),
        4 => (n(), n()).prop_map(|(node, wrap)| WrapExpr { node, wrap }),
        1 => (n(), n()).prop_map(|(token, with)| ReplaceIdentToken { token, with }),
        1 => n().prop_map(|token| DeleteToken { token }),
        1 => n().prop_map(|token| DuplicateToken { token }),
    ]
}

/// A place in the tree that a mutation may pick.
enum Node<'a> {
    Block(&'a mut Vec<syn::Stmt>),
    Expr(&'a mut syn::Expr),
    Type(&'a mut syn::Type),
    Binding(&'a mut syn::Ident),
}

type Visit<'v> = dyn FnMut(Node<'_>) + 'v;

fn walk_fn(f: &mut syn::ItemFn, v: &mut Visit<'_>) {
    for input in &mut f.sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            walk_pat(&mut pt.pat, v);
            v(Node::Type(&mut pt.ty));
        }
    }
    walk_block(&mut f.block, v);
}

fn walk_block(b: &mut syn::Block, v: &mut Visit<'_>) {
    v(Node::Block(&mut b.stmts));
    for s in &mut b.stmts {
        match s {
            syn::Stmt::Local(l) => {
                walk_pat(&mut l.pat, v);
                if let Some(init) = &mut l.init {
                    walk_expr(&mut init.expr, v);
                }
            }
            syn::Stmt::Expr(e, _) => walk_expr(e, v),
            syn::Stmt::Item(_) | syn::Stmt::Macro(_) => {}
        }
    }
}

fn walk_pat(p: &mut syn::Pat, v: &mut Visit<'_>) {
    match p {
        syn::Pat::Ident(pi) => v(Node::Binding(&mut pi.ident)),
        syn::Pat::Type(pt) => {
            walk_pat(&mut pt.pat, v);
            v(Node::Type(&mut pt.ty));
        }
        _ => {}
    }
}

fn walk_expr(e: &mut syn::Expr, v: &mut Visit<'_>) {
    use syn::Expr as E;
    v(Node::Expr(&mut *e));
    let mut walk = |e: &mut syn::Expr| walk_expr(e, v);
    match e {
        E::Binary(b) => {
            walk(&mut b.left);
            walk(&mut b.right);
        }
        E::Assign(a) => {
            walk(&mut a.left);
            walk(&mut a.right);
        }
        E::Index(i) => {
            walk(&mut i.expr);
            walk(&mut i.index);
        }
        E::MethodCall(m) => {
            walk(&mut m.receiver);
            m.args.iter_mut().for_each(&mut walk);
        }
        E::Call(c) => {
            walk(&mut c.func);
            c.args.iter_mut().for_each(&mut walk);
        }
        E::Tuple(t) => t.elems.iter_mut().for_each(&mut walk),
        E::Array(a) => a.elems.iter_mut().for_each(&mut walk),
        E::Unary(u) => walk(&mut u.expr),
        E::Paren(p) => walk(&mut p.expr),
        E::Group(g) => walk(&mut g.expr),
        E::Reference(r) => walk(&mut r.expr),
        E::Field(f) => walk(&mut f.base),
        E::Closure(c) => walk(&mut c.body),
        E::Return(syn::ExprReturn { expr: Some(x), .. })
        | E::Break(syn::ExprBreak { expr: Some(x), .. }) => walk(x),
        E::Range(r) => {
            if let Some(s) = &mut r.start {
                walk(s);
            }
            if let Some(s) = &mut r.end {
                walk(s);
            }
        }
        E::Cast(c) => {
            walk(&mut c.expr);
            v(Node::Type(&mut c.ty));
        }
        E::ForLoop(f) => {
            walk_pat(&mut f.pat, v);
            walk_expr(&mut f.expr, v);
            walk_block(&mut f.body, v);
        }
        E::If(i) => {
            walk_expr(&mut i.cond, v);
            walk_block(&mut i.then_branch, v);
            if let Some((_, e)) = &mut i.else_branch {
                walk_expr(e, v);
            }
        }
        E::While(w) => {
            walk_expr(&mut w.cond, v);
            walk_block(&mut w.body, v);
        }
        E::Block(b) => walk_block(&mut b.block, v),
        E::Loop(l) => walk_block(&mut l.body, v),
        E::Unsafe(u) => walk_block(&mut u.block, v),
        _ => {}
    }
}

/// Applies `act` to the `pick`-th node (modulo their number) for which `wanted` holds. False where
/// there is none.
fn at_node(
    f: &mut syn::ItemFn,
    pick: u32,
    wanted: impl Fn(&Node<'_>) -> bool,
    act: impl FnOnce(Node<'_>),
) -> bool {
    let mut count = 0usize;
    walk_fn(f, &mut |n| count += usize::from(wanted(&n)));
    if count == 0 {
        return false;
    }
    let target = pick as usize % count;
    let (mut seen, mut act) = (0usize, Some(act));
    walk_fn(f, &mut |n| {
        if wanted(&n) {
            if seen == target {
                if let Some(act) = act.take() {
                    act(n);
                }
            }
            seen += 1;
        }
    });
    true
}

/// The names the kernel binds: parameters, `let`s, loop variables.
fn bound_names(f: &mut syn::ItemFn) -> Vec<String> {
    let mut names = Vec::new();
    walk_fn(f, &mut |n| {
        if let Node::Binding(id) = n {
            let name = id.to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    });
    names
}

/// A name for a pick: the kernel's own names come first and as often as the pools' together.
fn name_for(names: &[String], pick: u32) -> String {
    let pick = pick as usize;
    if pick.is_multiple_of(2) && !names.is_empty() {
        names[(pick / 2) % names.len()].clone()
    } else {
        NAMES[(pick / 2) % NAMES.len()].to_string()
    }
}

/// `template` with each `@` replaced by a name of the kernel (a different pick each time).
fn fill(template: &str, names: &[String], pick: u32) -> String {
    let mut out = String::new();
    for (i, part) in template.split('@').enumerate() {
        if i > 0 {
            out.push_str(&name_for(
                names,
                pick.wrapping_mul(31).wrapping_add(i as u32 * 7),
            ));
        }
        out.push_str(part);
    }
    out
}

fn tokens_text(t: &impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

/// Applies `m` to the kernel `text`; returns the new text (the same where `m` does not apply).
pub fn apply(text: &str, m: &Mutation) -> String {
    use Mutation::*;
    match *m {
        ReplaceIdentToken { token, with } => {
            let Ok(ts) = text.parse::<TokenStream>() else {
                return text.to_string();
            };
            let names = syn::parse2::<syn::ItemFn>(ts.clone())
                .map(|mut f| bound_names(&mut f))
                .unwrap_or_default();
            let new = match with as usize % 3 {
                0 => name_for(&names, with / 3),
                1 => METHODS[(with / 3) as usize % METHODS.len()].to_string(),
                _ => [
                    "for", "in", "let", "mut", "if", "else", "as", "fn", "pub", "Float", "T",
                ][(with / 3) as usize % 11]
                    .to_string(),
            };
            let Ok(replacement) = new.parse::<TokenStream>() else {
                return text.to_string();
            };
            let out = map_token(ts, token, true, |_| {
                replacement.clone().into_iter().collect()
            });
            print_tokens(out)
        }
        DeleteToken { token } | DuplicateToken { token } => {
            let Ok(ts) = text.parse::<TokenStream>() else {
                return text.to_string();
            };
            let duplicate = matches!(m, DuplicateToken { .. });
            let out = map_token(ts, token, false, |t| {
                if duplicate {
                    vec![t.clone(), t]
                } else {
                    vec![]
                }
            });
            print_tokens(out)
        }
        _ => {
            let Ok(mut f) = syn::parse_str::<syn::ItemFn>(text) else {
                return text.to_string();
            };
            if apply_to_tree(&mut f, m) {
                print_tokens(f.to_token_stream())
            } else {
                text.to_string()
            }
        }
    }
}

fn is_block(n: &Node<'_>, min_len: usize) -> bool {
    matches!(n, Node::Block(b) if b.len() >= min_len)
}

fn apply_to_tree(f: &mut syn::ItemFn, m: &Mutation) -> bool {
    use Mutation::*;
    let names = bound_names(f);
    match *m {
        DeleteStmt { block, at } => at_node(
            f,
            block,
            |n| is_block(n, 1),
            |n| {
                if let Node::Block(b) = n {
                    b.remove(at as usize % b.len());
                }
            },
        ),
        DuplicateStmt { block, at } => at_node(
            f,
            block,
            |n| is_block(n, 1),
            |n| {
                if let Node::Block(b) = n {
                    let i = at as usize % b.len();
                    b.insert(i, b[i].clone());
                }
            },
        ),
        SwapStmts {
            block,
            first,
            second,
        } => at_node(
            f,
            block,
            |n| is_block(n, 2),
            |n| {
                if let Node::Block(b) = n {
                    let len = b.len();
                    b.swap(first as usize % len, second as usize % len);
                }
            },
        ),
        ReplaceOperator { node, op } => at_node(
            f,
            node,
            |n| matches!(n, Node::Expr(syn::Expr::Binary(_) | syn::Expr::Assign(_))),
            |n| {
                let Node::Expr(e) = n else { return };
                let (l, r) = match &*e {
                    syn::Expr::Binary(b) => (tokens_text(&b.left), tokens_text(&b.right)),
                    syn::Expr::Assign(a) => (tokens_text(&a.left), tokens_text(&a.right)),
                    _ => return,
                };
                let op = OPERATORS[op as usize % OPERATORS.len()];
                replace_expr(e, &format!("{l} {op} {r}"));
            },
        ),
        ReplaceLiteral { node, with } => at_node(
            f,
            node,
            |n| matches!(n, Node::Expr(syn::Expr::Lit(_))),
            |n| {
                if let Node::Expr(e) = n {
                    replace_expr(e, LITERALS[with as usize % LITERALS.len()]);
                }
            },
        ),
        ReplaceName { node, with } => at_node(
            f,
            node,
            |n| matches!(n, Node::Expr(syn::Expr::Path(_))),
            |n| {
                if let Node::Expr(e) = n {
                    replace_expr(e, &name_for(&names, with));
                }
            },
        ),
        RenameBinding { binding, with } => {
            if names.is_empty() {
                return false;
            }
            let old = &names[binding as usize % names.len()];
            let new = name_for(&names, with);
            let Ok(new_ident) = new.parse::<TokenStream>() else {
                return false;
            };
            let renamed = rename_all(f.to_token_stream(), old, &new_ident);
            match syn::parse2::<syn::ItemFn>(renamed) {
                Ok(g) => {
                    *f = g;
                    true
                }
                Err(_) => false,
            }
        }
        ReplaceMethod { node, with } => at_node(
            f,
            node,
            |n| matches!(n, Node::Expr(syn::Expr::MethodCall(_))),
            |n| {
                if let Node::Expr(syn::Expr::MethodCall(mc)) = n {
                    if let Ok(id) = syn::parse_str(METHODS[with as usize % METHODS.len()]) {
                        mc.method = id;
                    }
                }
            },
        ),
        WrapStmt { block, at, wrap } => at_node(
            f,
            block,
            |n| is_block(n, 1),
            |n| {
                let Node::Block(b) = n else { return };
                let i = at as usize % b.len();
                let template = STMT_WRAPS[wrap as usize % STMT_WRAPS.len()];
                let text = template
                    .replace('$', &name_for(&names, wrap / 16))
                    .replace('@', &tokens_text(&b[i]));
                if let Ok(s) = syn::parse_str::<syn::Stmt>(&text) {
                    b[i] = s;
                }
            },
        ),
        InsertStmt { block, at, stmt } => at_node(
            f,
            block,
            |_| true,
            |n| {
                let Node::Block(b) = n else { return };
                let text = fill(
                    STATEMENTS[stmt as usize % STATEMENTS.len()],
                    &names,
                    stmt / 8,
                );
                if let Ok(s) = syn::parse_str::<syn::Stmt>(&text) {
                    b.insert(at as usize % (b.len() + 1), s);
                }
            },
        ),
        ReplaceType { node, with } => at_node(
            f,
            node,
            |n| matches!(n, Node::Type(_)),
            |n| {
                if let Node::Type(t) = n {
                    if let Ok(new) = syn::parse_str(TYPES[with as usize % TYPES.len()]) {
                        *t = new;
                    }
                }
            },
        ),
        WrapExpr { node, wrap } => at_node(
            f,
            node,
            |n| {
                use syn::Expr as E;
                matches!(
                    n,
                    Node::Expr(
                        E::Lit(_)
                            | E::Path(_)
                            | E::Binary(_)
                            | E::Index(_)
                            | E::MethodCall(_)
                            | E::Call(_)
                            | E::Cast(_)
                            | E::Unary(_)
                            | E::Paren(_)
                    )
                )
            },
            |n| {
                if let Node::Expr(e) = n {
                    let inner = tokens_text(&*e);
                    replace_expr(
                        e,
                        &EXPR_WRAPS[wrap as usize % EXPR_WRAPS.len()].replace('@', &inner),
                    );
                }
            },
        ),
        ReplaceIdentToken { .. } | DeleteToken { .. } | DuplicateToken { .. } => {
            unreachable!("token mutations are applied to the text")
        }
    }
}

fn replace_expr(e: &mut syn::Expr, text: &str) {
    if let Ok(new) = syn::parse_str::<syn::Expr>(text) {
        *e = new;
    }
}

/// Every identifier token equal to `old`, replaced by `new`.
fn rename_all(ts: TokenStream, old: &str, new: &TokenStream) -> TokenStream {
    ts.into_iter()
        .flat_map(|t| -> Vec<TokenTree> {
            match t {
                TokenTree::Ident(i) if i == old => new.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    vec![TokenTree::Group(Group::new(
                        g.delimiter(),
                        rename_all(g.stream(), old, new),
                    ))]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// Replaces the `pick`-th token tree (depth first; identifiers only where `idents`), modulo their
/// number, by what `with` makes of it.
fn map_token(
    ts: TokenStream,
    pick: u32,
    idents: bool,
    with: impl Fn(TokenTree) -> Vec<TokenTree>,
) -> TokenStream {
    fn count(ts: &TokenStream, idents: bool) -> usize {
        ts.clone()
            .into_iter()
            .map(|t| match &t {
                TokenTree::Group(g) => usize::from(!idents) + count(&g.stream(), idents),
                TokenTree::Ident(_) => 1,
                _ => usize::from(!idents),
            })
            .sum()
    }
    fn rebuild(
        ts: TokenStream,
        target: usize,
        seen: &mut usize,
        idents: bool,
        with: &dyn Fn(TokenTree) -> Vec<TokenTree>,
    ) -> TokenStream {
        let mut out = Vec::new();
        for t in ts {
            let counts = !idents || matches!(t, TokenTree::Ident(_));
            if counts {
                if *seen == target {
                    *seen += 1;
                    out.extend(with(t));
                    continue;
                }
                *seen += 1;
            }
            match t {
                TokenTree::Group(g) => {
                    let inner = rebuild(g.stream(), target, seen, idents, with);
                    out.push(TokenTree::Group(Group::new(g.delimiter(), inner)));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
    let total = count(&ts, idents);
    if total == 0 {
        return ts;
    }
    rebuild(ts, pick as usize % total, &mut 0, idents, &with)
}

/// Prints tokens as source with a line per statement and per brace, indented: what the fuzz
/// parses (so that spans carry lines) and what a failure shows.
pub fn print_tokens(ts: TokenStream) -> String {
    let mut out = String::new();
    print_into(ts, 0, &mut out);
    out.trim_end().to_string()
}

fn print_into(ts: TokenStream, depth: usize, out: &mut String) {
    let newline = |out: &mut String, depth: usize| {
        while out.ends_with(' ') {
            out.pop();
        }
        out.push('\n');
        out.push_str(&"    ".repeat(depth));
    };
    for t in ts {
        match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => {
                out.push('{');
                newline(out, depth + 1);
                print_into(g.stream(), depth + 1, out);
                newline(out, depth);
                out.push('}');
                newline(out, depth);
            }
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    _ => ("", ""),
                };
                out.push_str(open);
                print_into(g.stream(), depth, out);
                while out.ends_with(' ') {
                    out.pop();
                }
                out.push_str(close);
                out.push(' ');
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                if p.as_char() == ';' {
                    newline(out, depth);
                } else if p.spacing() == Spacing::Alone {
                    out.push(' ');
                }
            }
            other => {
                out.push_str(&other.to_string());
                out.push(' ');
            }
        }
    }
}
