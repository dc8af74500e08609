//! The README's schedule table is `loops::SCHEDULES`, row for row, so that it cannot drift from the
//! schedule units it is made from. `LOOPS_UPDATE_README=1 cargo test --test readme_schedules`
//! writes the table from `SCHEDULES`.

const HEADER: &str = "| name | attribute | what it does |\n";

/// The table as `SCHEDULES` makes it.
fn table() -> String {
    let mut table = format!("{HEADER}|---|---|---|\n");
    for s in loops::SCHEDULES {
        table += &format!("| `{}` | `{}` | {} |\n", s.name, s.attr, s.about);
    }
    table
}

#[test]
fn the_readme_lists_every_named_schedule() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).expect("the README reads");
    let start = readme
        .find(HEADER)
        .expect("the README has the schedule table");
    // The table ends at the first line that is not a row.
    let end = readme[start..]
        .split_inclusive('\n')
        .take_while(|line| line.starts_with('|'))
        .map(str::len)
        .sum::<usize>()
        + start;
    let want = table();
    if readme[start..end] == want {
        return;
    }
    if std::env::var("LOOPS_UPDATE_README").is_ok_and(|v| v == "1") {
        let updated = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, updated).expect("the README writes");
        return;
    }
    panic!(
        "the README's schedule table is not loops::SCHEDULES; run \
         `LOOPS_UPDATE_README=1 cargo test --test readme_schedules`, or write:\n{want}"
    );
}
