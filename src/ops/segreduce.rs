//! `transform_segreduce!`: a kernel from a per-atom expression and a reduction, with no loop to
//! write (gunrock/loops' `transform_segreduce<schedule>(lambda, layout, ..., plus, init)`).
//!
//! The macro writes the two loops of the language (`for tile in set.tiles() { for atom in
//! set.atoms(tile) { .. } }`) around the expression, with the reduction's accumulator, its
//! identity for an empty tile and the store of the result, and hands that function to
//! `#[load_balanced]`, which turns it into CUDA at build time like any other kernel. So whatever
//! the kernel language takes in a body (slices, scalars, builtins, `#[device]` helpers) the
//! expression may use, and every schedule applies.
//!
//! The macro's docs ([`crate::transform_segreduce`]) say what it takes and how it expands.

/// Defines a kernel from a per-atom expression and a reduction: one result per tile, with no loop
/// to write. The beginner's door to the kernel language: `#[load_balanced]` with the loops
/// written for you.
///
/// ```text
/// transform_segreduce! {
///     /// Docs, as on any function.
///     #[load_balanced(schedule = "warp")]        // optional: schedule "auto" without it
///     pub fn NAME<T: Float>(SET: Csr<T>, PARAMS..) -> REDUCTION |TILE, ATOM| EXPRESSION;
///     ... more kernels, separated by `;`
/// }
/// ```
///
/// - The first parameter is the tile set (`Csr<T>`, `Csc<T>`, `Coo<T>` or `Offsets`); the others
///   are what the expression reads: slices (`&[T]`) and scalars, as in any kernel.
/// - `EXPRESSION` is computed for every atom `ATOM` of every tile `TILE`, in the kernel language
///   (the same expressions a `#[load_balanced]` body takes).
/// - The generated launcher takes the device, the kernel's parameters as device buffers, then the
///   outputs, one slot per tile: `NAME(&gpu, &a, &x, &mut out)?`. It checks every buffer's length
///   first, like every kernel's launcher.
///
/// The reductions (an empty tile gets the value in parentheses):
///
/// | reduction | output(s) | empty tile |
/// |---|---|---|
/// | `sum` | `&mut [T]` | `0` |
/// | `product` | `&mut [T]` | `1` |
/// | `min` | `&mut [T]` | `+∞` |
/// | `max` | `&mut [T]` | `-∞` |
/// | `argmax`, `argmin` | `&mut [T]`, then `&mut [i32]` | `-∞`/`+∞`, `-1` |
///
/// `argmax`/`argmin` store the best value and its position: by default the atom's column (`Csr`,
/// `Coo`), row (`Csc`) or the atom index itself (`Offsets`); write `|t, i| (value, position)` to
/// choose it (an `i32` expression). Among equal values the first atom wins; NaN is never chosen,
/// and a tile whose values are all `-∞` (`argmax`) or `+∞` (`argmin`) reports `-1` like an empty
/// one.
///
/// The output type is the tile set's value type (`Csr<T>`: `T`), else the kernel's first type
/// parameter (an `Offsets` kernel); name it to choose another float: `sum<f64> |t, i| ..`.
///
/// `sum`, `product`, `min` and `max` take a finishing expression, applied to each tile's result
/// before the store: `-> sum |row, nz| v * v => |s| s.sqrt()` (a row's Euclidean norm). It may
/// read the tile variable and the parameters too.
///
/// Names starting with `segreduce_` are the macro's own (see Names below); the front end's
/// rules for the rest are `#[load_balanced]`'s.
///
/// # How it expands
///
/// ```text
/// transform_segreduce! {
///     pub fn row_dot<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[..]
/// }
/// ```
/// becomes
/// ```text
/// #[load_balanced(schedule = "auto")]
/// pub fn row_dot<T: Float>(a: Csr<T>, x: &[T], segreduce_out: &mut [T]) {
///     for row in a.tiles() {
///         let mut segreduce_acc: T = 0.0;
///         for nz in a.atoms(row) {
///             segreduce_acc += a.values[nz] * x[..];
///         }
///         let segreduce_result = segreduce_acc;
///         segreduce_out[row] = segreduce_result;
///     }
/// }
/// ```
/// `min`/`max` update with `acc = min(acc, e)`, `product` with `acc *= e`, and `argmax`/`argmin`
/// are the keyed selection `if v > best { best = v; at = position; }`: the forms the schedules
/// that share a tile between threads know how to combine (by the operator; a selection by value,
/// then by position, so the first atom among equal values wins under every schedule).
///
/// # Names
///
/// `#[load_balanced]` reads the body by name, not through Rust's hygiene, so the macro's own
/// names must not meet the user's: they all start with `segreduce_` (the parameters
/// `segreduce_out` and `segreduce_at`, the locals `segreduce_acc`, `segreduce_result`,
/// `segreduce_value`, `segreduce_position`). Do not name anything of a kernel so. The front end
/// reserves `loops_` and `__` for the generated CUDA, which is why the prefix is neither.
///
/// Each kernel of a list nests about ten macro expansions (one per parameter, too) inside the
/// previous one's; a list of more than about ten kernels in one invocation may need a higher
/// `#![recursion_limit]`, or several invocations.
///
/// # Example
///
/// ```no_run
/// use loops::prelude::*;
///
/// loops::transform_segreduce! {
///     /// Each row's dot product with `x`.
///     pub fn row_dot<T: Float>(a: Csr<T>, x: &[T]) -> sum |row, nz| a.values[nz] * x[a.col_indices[nz] as usize];
///
///     /// Each row's largest magnitude and its column, under the warp-per-row schedule.
///     #[load_balanced(schedule = "warp")]
///     pub fn row_argmax_abs<T: Float>(a: Csr<T>) -> argmax |row, nz| a.values[nz].abs();
/// }
///
/// fn main() -> loops::Result<()> {
///     let gpu = Gpu::new(0)?;
///     let a = gpu.upload_csr(&loops::io::generate::uniform::<f32>(1000, 800, 8, 1))?;
///     let x = gpu.upload(&vec![1.0f32; 800])?;
///     let mut dots = gpu.zeros::<f32>(1000)?;
///     row_dot(&gpu, &a, &x, &mut dots)?;
///     let (mut best, mut at) = (gpu.zeros::<f32>(1000)?, gpu.zeros::<i32>(1000)?);
///     row_argmax_abs(&gpu, &a, &mut best, &mut at)?;
///     println!("{:?} {:?}", &gpu.download(&dots)?[..4], &gpu.download(&at)?[..4]);
///     Ok(())
/// }
/// ```
#[macro_export]
macro_rules! transform_segreduce {
    () => {};

    // The stages below hand each other what they have parsed in bracketed groups. Types and
    // visibility travel as plain tokens, not as `ty`/`vis` fragments: `#[load_balanced]` reads the
    // function with `syn`, which sees a fragment as an invisible group and would not take it for
    // a slice or a type parameter.

    // ---- 1. Attributes: `#[load_balanced(..)]` is the schedule; the others (docs) stay on the
    // function. State: [attributes kept] [nothing, or (the schedule's arguments)].
    (@attrs [$($attrs:tt)*] [] #[load_balanced($($sched:tt)*)] $($rest:tt)*) => {
        $crate::transform_segreduce!(@attrs [$($attrs)*] [($($sched)*)] $($rest)*);
    };
    (@attrs $attrs:tt [$given:tt] #[load_balanced $($again:tt)*] $($rest:tt)*) => {
        ::core::compile_error!(
            "transform_segreduce!: `#[load_balanced(..)]` is given twice for one kernel"
        );
    };
    (@attrs [$($attrs:tt)*] $sched:tt #[$($attr:tt)*] $($rest:tt)*) => {
        $crate::transform_segreduce!(@attrs [$($attrs)* #[$($attr)*]] $sched $($rest)*);
    };
    (@attrs $attrs:tt [] $($rest:tt)*) => {
        $crate::transform_segreduce!(@sig $attrs [schedule = "auto"] $($rest)*);
    };
    (@attrs $attrs:tt [($($sched:tt)*)] $($rest:tt)*) => {
        $crate::transform_segreduce!(@sig $attrs [$($sched)*] $($rest)*);
    };

    // ---- 2. The signature. The tile set comes first. Candidates for the output type: the tile
    // set's value type, then the first type parameter.
    (@sig $attrs:tt $sched:tt
        $(pub $(($($vis:tt)*))?)? fn $name:ident
        $(< $g0:ident $(: $($gb0:ident)::+)? $(, $g:ident $(: $($gb:ident)::+)?)* $(,)? >)?
        ( $set:ident : $fmt:ident $(< $selem:ident >)? $(, $($params:tt)*)? )
        -> $($tail:tt)*
    ) => {
        $crate::transform_segreduce!(@tile_set $fmt @params
            [[$attrs $sched [$(pub $(($($vis)*))?)?] $name
              [$(< $g0 $(: $($gb0)::+)? $(, $g $(: $($gb)::+)?)* >)?]
              $set [$fmt $(< $selem >)?]]
             $set $fmt [$($selem)? $($g0)?] [$($tail)*]]
            [] $($($params)*)?);
    };
    (@sig $attrs:tt $sched:tt $(pub $(($($vis:tt)*))?)? fn $name:ident $($rest:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: expected `fn ", ::core::stringify!($name),
            "<T: Float>(a: Csr<T>, other parameters..) -> REDUCTION |tile, atom| expression`: ",
            "the tile set first (`Csr<T>`, `Csc<T>`, `Coo<T>` or `Offsets`), then slices and scalars"
        ));
    };
    (@sig $attrs:tt $sched:tt $($rest:tt)*) => {
        ::core::compile_error!(
            "transform_segreduce!: expected a kernel: `pub fn name<T: Float>(a: Csr<T>, ..) -> sum |row, nz| expression`"
        );
    };

    // The first parameter must be a tile set.
    (@tile_set Csr $($then:tt)*) => { $crate::transform_segreduce!($($then)*); };
    (@tile_set Csc $($then:tt)*) => { $crate::transform_segreduce!($($then)*); };
    (@tile_set Coo $($then:tt)*) => { $crate::transform_segreduce!($($then)*); };
    (@tile_set Offsets $($then:tt)*) => { $crate::transform_segreduce!($($then)*); };
    (@tile_set $fmt:ident $($then:tt)*) => { $crate::transform_segreduce!(@not_a_tile_set $fmt); };

    // The other parameters, one a step, each ended by a comma in the output. Their types are
    // what the kernel language takes: slices, scalars, another tile set.
    (@params [[$($head:tt)*] $($state:tt)*] [$($done:tt)*]) => {
        $crate::transform_segreduce!(@tail [$($head)* [$($done)*]] $($state)*);
    };
    (@params $state:tt [$($done:tt)*] $p:ident : & [$e:ident] $(, $($rest:tt)*)?) => {
        $crate::transform_segreduce!(@params $state [$($done)* $p: &[$e],] $($($rest)*)?);
    };
    (@params $state:tt [$($done:tt)*] $p:ident : &mut [$e:ident] $(, $($rest:tt)*)?) => {
        $crate::transform_segreduce!(@params $state [$($done)* $p: &mut [$e],] $($($rest)*)?);
    };
    (@params $state:tt [$($done:tt)*] $p:ident : $f:ident < $e:ident > $(, $($rest:tt)*)?) => {
        $crate::transform_segreduce!(@params $state [$($done)* $p: $f<$e>,] $($($rest)*)?);
    };
    (@params $state:tt [$($done:tt)*] $p:ident : $t:ident $(, $($rest:tt)*)?) => {
        $crate::transform_segreduce!(@params $state [$($done)* $p: $t,] $($($rest)*)?);
    };
    (@params $state:tt $done:tt $($rest:tt)+) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: expected a parameter `name: &[T]`, `name: &mut [T]`, `name: T` \
             or `name: Csr<T>` (and the like), at `", ::core::stringify!($($rest)+), "`"
        ));
    };

    // ---- 3. The reduction: `NAME [<type>] |tile, atom| expression [=> |result| finishing]`,
    // or `argmax |tile, atom| (value, position)`; then `;` and the next kernel.
    (@tail $ctx:tt $set:ident $fmt:ident $tys:tt [
        $kind:ident $(< $oty:ident >)? | $tile:ident , $atom:ident | ( $value:expr , $pos:expr )
        $(; $($rest:tt)*)?
    ]) => {
        $crate::transform_segreduce!(@selection $kind
            [$ctx [$($oty)?] $tys $tile $atom [$value] [($pos) as i32]]);
        $($crate::transform_segreduce!($($rest)*);)?
    };
    (@tail $ctx:tt $set:ident $fmt:ident $tys:tt [
        $kind:ident $(< $oty:ident >)? | $tile:ident , $atom:ident | $value:expr
        => | $result:ident | $finish:expr
        $(; $($rest:tt)*)?
    ]) => {
        $crate::transform_segreduce!(@fold $kind
            [$ctx [$($oty)?] $tys $tile $atom [$value] [$result] [$finish]]);
        $($crate::transform_segreduce!($($rest)*);)?
    };
    (@tail $ctx:tt $set:ident $fmt:ident $tys:tt [
        $kind:ident $(< $oty:ident >)? | $tile:ident , $atom:ident | $value:expr
        $(; $($rest:tt)*)?
    ]) => {
        $crate::transform_segreduce!(@by_kind $kind $set $fmt
            [$ctx [$($oty)?] $tys $tile $atom [$value]]);
        $($crate::transform_segreduce!($($rest)*);)?
    };
    (@tail $ctx:tt $set:ident $fmt:ident $tys:tt $tail:tt) => {
        ::core::compile_error!(
            "transform_segreduce!: after `->`, expected `REDUCTION |tile, atom| expression` \
             (and `;` before the next kernel), where REDUCTION is sum, product, min, max, argmax \
             or argmin"
        );
    };

    // Without a finishing expression a fold stores its result as it is, and a selection takes
    // its tile set's default position.
    (@by_kind argmax $set:ident $fmt:ident $args:tt) => {
        $crate::transform_segreduce!(@position argmax $set $fmt $args);
    };
    (@by_kind argmin $set:ident $fmt:ident $args:tt) => {
        $crate::transform_segreduce!(@position argmin $set $fmt $args);
    };
    (@by_kind $kind:ident $set:ident $fmt:ident [$($args:tt)*]) => {
        $crate::transform_segreduce!(@fold $kind
            [$($args)* [segreduce_result] [segreduce_result]]);
    };

    // The position an argmax/argmin stores by default: the atom's column (its row under `Csc`),
    // or over plain offsets the atom itself.
    (@position $kind:ident $set:ident Csr [$($args:tt)*]) => {
        $crate::transform_segreduce!(@selection_at $kind [$($args)*] [$set.col_indices]);
    };
    (@position $kind:ident $set:ident Coo [$($args:tt)*]) => {
        $crate::transform_segreduce!(@selection_at $kind [$($args)*] [$set.col_indices]);
    };
    (@position $kind:ident $set:ident Csc [$($args:tt)*]) => {
        $crate::transform_segreduce!(@selection_at $kind [$($args)*] [$set.row_indices]);
    };
    (@position $kind:ident $set:ident Offsets
        [$ctx:tt $oty:tt $tys:tt $tile:ident $atom:ident $value:tt]) => {
        $crate::transform_segreduce!(@selection $kind
            [$ctx $oty $tys $tile $atom $value [$atom as i32]]);
    };
    (@selection_at $kind:ident [$ctx:tt $oty:tt $tys:tt $tile:ident $atom:ident $value:tt]
        [$($indices:tt)*]) => {
        $crate::transform_segreduce!(@selection $kind
            [$ctx $oty $tys $tile $atom $value [$($indices)*[$atom]]]);
    };

    // ---- 4. Which reduction.
    (@fold sum $args:tt) => { $crate::transform_segreduce!(@out_ty sum $args); };
    (@fold product $args:tt) => { $crate::transform_segreduce!(@out_ty product $args); };
    (@fold min $args:tt) => { $crate::transform_segreduce!(@out_ty min $args); };
    (@fold max $args:tt) => { $crate::transform_segreduce!(@out_ty max $args); };
    (@fold argmax $args:tt) => { $crate::transform_segreduce!(@no_finish argmax); };
    (@fold argmin $args:tt) => { $crate::transform_segreduce!(@no_finish argmin); };
    (@fold $kind:ident $args:tt) => { $crate::transform_segreduce!(@unknown $kind); };
    (@selection argmax $args:tt) => { $crate::transform_segreduce!(@out_ty argmax $args); };
    (@selection argmin $args:tt) => { $crate::transform_segreduce!(@out_ty argmin $args); };
    (@selection sum $args:tt) => { $crate::transform_segreduce!(@not_pair sum); };
    (@selection product $args:tt) => { $crate::transform_segreduce!(@not_pair product); };
    (@selection min $args:tt) => { $crate::transform_segreduce!(@not_pair min); };
    (@selection max $args:tt) => { $crate::transform_segreduce!(@not_pair max); };
    (@selection $kind:ident $args:tt) => { $crate::transform_segreduce!(@unknown $kind); };

    // The output type: named, else the tile set's value type, else the first type parameter.
    (@out_ty $kind:ident [$ctx:tt [] [] $($rest:tt)*]) => {
        ::core::compile_error!(
            "transform_segreduce!: no output type to infer (the tile set has no value type and \
             the kernel no type parameter); name it after the reduction: `sum<f32> |t, i| ..`"
        );
    };
    (@out_ty $kind:ident [$ctx:tt [] [$t:ident $($more:ident)*] $($rest:tt)*]) => {
        $crate::transform_segreduce!(@out_ty $kind [$ctx [$t] [] $($rest)*]);
    };
    // The identities are float literals and float constants: the outputs are floats.
    (@out_ty $kind:ident [$ctx:tt [i32] $($rest:tt)*]) => { $crate::transform_segreduce!(@not_float i32); };
    (@out_ty $kind:ident [$ctx:tt [u32] $($rest:tt)*]) => { $crate::transform_segreduce!(@not_float u32); };
    (@out_ty $kind:ident [$ctx:tt [i64] $($rest:tt)*]) => { $crate::transform_segreduce!(@not_float i64); };
    (@out_ty $kind:ident [$ctx:tt [u64] $($rest:tt)*]) => { $crate::transform_segreduce!(@not_float u64); };
    (@out_ty $kind:ident [$ctx:tt [usize] $($rest:tt)*]) => { $crate::transform_segreduce!(@not_float usize); };
    (@out_ty $kind:ident [$ctx:tt [bool] $($rest:tt)*]) => { $crate::transform_segreduce!(@not_float bool); };
    (@out_ty $kind:ident [$ctx:tt [$oty:ident] $tys:tt $($rest:tt)*]) => {
        $crate::transform_segreduce!(@emit $kind $ctx $oty $($rest)*);
    };

    // ---- 5. The kernel: each reduction's identity and update, then the function.
    (@emit sum $ctx:tt $oty:ident $tile:ident $atom:ident [$value:expr] $result:tt $finish:tt) => {
        $crate::transform_segreduce!(@fold_fn $ctx $oty $tile $atom [0.0]
            [segreduce_acc += $value;] $result $finish);
    };
    (@emit product $ctx:tt $oty:ident $tile:ident $atom:ident [$value:expr] $result:tt $finish:tt) => {
        $crate::transform_segreduce!(@fold_fn $ctx $oty $tile $atom [1.0]
            [segreduce_acc *= $value;] $result $finish);
    };
    (@emit min $ctx:tt $oty:ident $tile:ident $atom:ident [$value:expr] $result:tt $finish:tt) => {
        $crate::transform_segreduce!(@fold_fn $ctx $oty $tile $atom [$oty::INFINITY]
            [segreduce_acc = min(segreduce_acc, $value);] $result $finish);
    };
    (@emit max $ctx:tt $oty:ident $tile:ident $atom:ident [$value:expr] $result:tt $finish:tt) => {
        $crate::transform_segreduce!(@fold_fn $ctx $oty $tile $atom [$oty::NEG_INFINITY]
            [segreduce_acc = max(segreduce_acc, $value);] $result $finish);
    };
    (@emit argmax $ctx:tt $oty:ident $tile:ident $atom:ident $value:tt $pos:tt) => {
        $crate::transform_segreduce!(@select_fn $ctx $oty $tile $atom [NEG_INFINITY] [>] $value $pos);
    };
    (@emit argmin $ctx:tt $oty:ident $tile:ident $atom:ident $value:tt $pos:tt) => {
        $crate::transform_segreduce!(@select_fn $ctx $oty $tile $atom [INFINITY] [<] $value $pos);
    };

    (@fold_fn [$attrs:tt [$($sched:tt)*] [$($vis:tt)*] $name:ident [$($gens:tt)*] $set:ident
               [$($set_ty:tt)*] [$($params:tt)*]]
        $oty:ident $tile:ident $atom:ident [$($identity:tt)*] [$($update:tt)*]
        [$result:ident] [$finish:expr]
    ) => {
        $crate::transform_segreduce!(@attach $attrs
            #[$crate::load_balanced($($sched)*)]
            $($vis)* fn $name $($gens)* ($set: $($set_ty)*, $($params)* segreduce_out: &mut [$oty]) {
                for $tile in $set.tiles() {
                    let mut segreduce_acc: $oty = $($identity)*;
                    for $atom in $set.atoms($tile) {
                        $($update)*
                    }
                    let $result = segreduce_acc;
                    segreduce_out[$tile] = $finish;
                }
            }
        );
    };
    (@select_fn [$attrs:tt [$($sched:tt)*] [$($vis:tt)*] $name:ident [$($gens:tt)*] $set:ident
                 [$($set_ty:tt)*] [$($params:tt)*]]
        $oty:ident $tile:ident $atom:ident [$start:ident] [$cmp:tt] [$value:expr] [$($pos:tt)*]
    ) => {
        $crate::transform_segreduce!(@attach $attrs
            #[$crate::load_balanced($($sched)*)]
            $($vis)* fn $name $($gens)* ($set: $($set_ty)*, $($params)*
                segreduce_out: &mut [$oty], segreduce_at: &mut [i32]) {
                for $tile in $set.tiles() {
                    let mut segreduce_acc: $oty = $oty::$start;
                    let mut segreduce_position: i32 = -1;
                    for $atom in $set.atoms($tile) {
                        let segreduce_value: $oty = $value;
                        if segreduce_value $cmp segreduce_acc {
                            segreduce_acc = segreduce_value;
                            segreduce_position = $($pos)*;
                        }
                    }
                    segreduce_out[$tile] = segreduce_acc;
                    segreduce_at[$tile] = segreduce_position;
                }
            }
        );
    };
    // The kept attributes (docs) go first, as written.
    (@attach [$($attrs:tt)*] $($item:tt)*) => { $($attrs)* $($item)* };

    // ---- Misuse.
    (@no_finish $kind:ident) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: `", ::core::stringify!($kind),
            "` takes no finishing expression (`=> |..| ..`)"
        ));
    };
    (@not_pair $kind:ident) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: `", ::core::stringify!($kind),
            "` takes one value per atom; `(value, position)` is for argmax and argmin"
        ));
    };
    (@unknown $kind:ident) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: unknown reduction `", ::core::stringify!($kind),
            "`; expected sum, product, min, max, argmax or argmin"
        ));
    };
    (@not_float $oty:ident) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: the output is a float (`f32`, `f64` or a type parameter), not `",
            ::core::stringify!($oty), "`"
        ));
    };
    (@not_a_tile_set $fmt:ident) => {
        ::core::compile_error!(::core::concat!(
            "transform_segreduce!: the first parameter must be the tile set (`Csr<T>`, `Csc<T>`, \
             `Coo<T>` or `Offsets`), not `", ::core::stringify!($fmt), "`"
        ));
    };

    // Entry: a list of kernels.
    ($($input:tt)+) => {
        $crate::transform_segreduce!(@attrs [] [] $($input)+);
    };
}
