//! GitHub workflow commands: format and escaping.

use super::super::github::{escape_data, escape_property};
use super::*;

fn github(diags: &[Diagnostic], m: &SourceMap) -> String {
    render(Format::Github, diags, m, Options::default())
}

#[test]
fn one_command_per_diagnostic() {
    let m = map(&[("flows/a.yaml", "name: x\nsteps:\n  - é: 1\n")]);
    let diags = [
        Diagnostic::error("AG001", "expected a string").at(find(&m, 0, "1", 0)),
        Diagnostic::warning("AG903", "unreachable node")
            .at(find(&m, 0, "steps:\n  - é", 0))
            .with_help("connect it"),
        Diagnostic::warning("AG903", "a note").with_severity(Severity::Note),
    ];
    let out = github(&diags, &m);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "::error file=flows/a.yaml,line=3,col=8,endLine=3,endColumn=9,title=AG001::expected a string",
            "::warning file=flows/a.yaml,line=2,col=1,endLine=3,endColumn=6,title=AG903::unreachable node%0Ahelp: connect it",
            "::notice title=AG903::a note",
        ]
    );
    assert!(out.ends_with('\n'));
    assert_eq!(github(&[], &m), "");
}

#[test]
fn escaping_of_data_and_properties() {
    assert_eq!(
        escape_data("100% done\r\nnext: a,b"),
        "100%25 done%0D%0Anext: a,b"
    );
    assert_eq!(
        escape_property("C:\\dir,x/100%\n"),
        "C%3A\\dir%2Cx/100%25%0A"
    );
    // `%` is escaped first, so escapes in the input survive literally.
    assert_eq!(escape_data("%0A"), "%250A");
}

#[test]
fn escaping_in_rendered_commands() {
    let m = map(&[("a:b,c%.yaml", "k: v\n")]);
    let d = [Diagnostic::error("AG001", "bad: 50%,\nreally")
        .at(find(&m, 0, "v", 0))
        .with_help("a, b: c")];
    assert_eq!(
        github(&d, &m),
        "::error file=a%3Ab%2Cc%25.yaml,line=1,col=4,endLine=1,endColumn=5,title=AG001::\
         bad: 50%25,%0Areally%0Ahelp: a, b: c\n"
    );
}
