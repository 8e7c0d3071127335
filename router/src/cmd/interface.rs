//! `zshm interface`: the message, service and action types zshm ships, like `ros2 interface`
//! (`list`, `show`, `package`, `packages`). Everything comes from the definitions compiled into
//! zshm ([`zshm_rosidl::InterfaceSet::shipped`]); nothing is asked of the network.
//!
//! `show` prints what Jazzy's `ros2 interface show` prints: the type's file, each nested type's
//! definition under its field indented by a tab (without its comments and blank lines unless
//! `--all-comments`), and `--no-comments` for the bare fields.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::process::ExitCode;

use clap::Subcommand;
use zshm_rosidl::{BaseType, InterfaceSet, MessageDef, Namespace, Source, TypeName};

use crate::cli::FlagError;
use crate::support::out::outln;

/// `zshm interface`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What to print.
    #[command(subcommand)]
    pub command: InterfaceCommand,
}

/// The `zshm interface` verbs.
#[derive(Debug, Subcommand)]
pub enum InterfaceCommand {
    /// List every message, service and action type (like `ros2 interface list`).
    List(KindArgs),
    /// Print a type's definition, nested types expanded (like `ros2 interface show`).
    Show(ShowArgs),
    /// List the types of one package (like `ros2 interface package`).
    Package(PackageArgs),
    /// List the packages that define types (like `ros2 interface packages`).
    Packages(KindArgs),
}

/// Which kinds of types to list; none given means all.
#[derive(Debug, clap::Args)]
pub struct KindArgs {
    /// Only message types.
    #[arg(short = 'm', long)]
    pub only_msgs: bool,
    /// Only service types.
    #[arg(short = 's', long)]
    pub only_srvs: bool,
    /// Only action types.
    #[arg(short = 'a', long)]
    pub only_actions: bool,
}

impl KindArgs {
    /// The namespaces asked for: all three when no flag is given.
    fn namespaces(&self) -> Vec<Namespace> {
        let asked = [
            (self.only_msgs, Namespace::Msg),
            (self.only_srvs, Namespace::Srv),
            (self.only_actions, Namespace::Action),
        ];
        let chosen: Vec<Namespace> = asked.iter().filter(|(on, _)| *on).map(|(_, ns)| *ns).collect();
        if chosen.is_empty() {
            vec![Namespace::Msg, Namespace::Srv, Namespace::Action]
        } else {
            chosen
        }
    }
}

/// `zshm interface show`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The type, e.g. geometry_msgs/msg/Twist (also pkg/Name for a message; `-` reads it from
    /// stdin, as in `zshm topic type /chatter | zshm interface show -`).
    #[arg(value_name = "TYPE")]
    pub type_name: String,
    /// Show the comments of the nested types too.
    #[arg(long, conflicts_with = "no_comments")]
    pub all_comments: bool,
    /// Show no comments and no blank lines.
    #[arg(long)]
    pub no_comments: bool,
}

/// `zshm interface package`.
#[derive(Debug, clap::Args)]
pub struct PackageArgs {
    /// The package, e.g. example_interfaces.
    pub package: String,
    /// Which kinds of types.
    #[command(flatten)]
    pub kinds: KindArgs,
}

/// Runs one `zshm interface` verb.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let set = InterfaceSet::shipped();
    match args.command {
        InterfaceCommand::List(kinds) => list(set, &kinds),
        InterfaceCommand::Show(show_args) => show(set, &show_args)?,
        InterfaceCommand::Package(package) => list_package(set, &package)?,
        InterfaceCommand::Packages(kinds) => {
            let wanted = kinds.namespaces();
            let packages: BTreeSet<String> = interface_names(set)
                .into_iter()
                .filter(|name| wanted.contains(&name.namespace))
                .map(|name| name.package)
                .collect();
            packages.iter().for_each(|package| outln!("{package}"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The types a user names: those with a file of their own (`X_Request`, `X_Goal`, ... are left
/// out, as in `ros2 interface list`), sorted by package, then name, within each namespace.
fn interface_names(set: &InterfaceSet) -> Vec<TypeName> {
    let has_file = |source: &Source| matches!(source, Source::File { .. });
    let mut names: Vec<TypeName> = set
        .messages()
        .filter(|def| has_file(&def.source))
        .map(|def| def.name.clone())
        .chain(
            set.services()
                .filter(|def| has_file(&def.source))
                .map(|def| def.name.clone()),
        )
        .chain(set.actions().map(|def| def.name.clone()))
        .collect();
    names.sort_by(|a, b| (a.namespace, &a.package, &a.name).cmp(&(b.namespace, &b.package, &b.name)));
    names
}

fn list(set: &InterfaceSet, kinds: &KindArgs) {
    let names = interface_names(set);
    for namespace in kinds.namespaces() {
        outln!(
            "{}",
            match namespace {
                Namespace::Msg => "Messages:",
                Namespace::Srv => "Services:",
                Namespace::Action => "Actions:",
            }
        );
        for name in names.iter().filter(|name| name.namespace == namespace) {
            outln!("    {name}");
        }
    }
}

fn list_package(set: &InterfaceSet, args: &PackageArgs) -> anyhow::Result<()> {
    if !set.packages().contains(args.package.as_str()) {
        let known: Vec<&str> = set.packages().into_iter().collect();
        return Err(FlagError(format!(
            "unknown package {}; zshm ships {}",
            args.package,
            known.join(", ")
        ))
        .into());
    }
    let wanted = args.kinds.namespaces();
    for name in interface_names(set)
        .iter()
        .filter(|name| name.package == args.package && wanted.contains(&name.namespace))
    {
        outln!("{name}");
    }
    Ok(())
}

fn show(set: &InterfaceSet, args: &ShowArgs) -> anyhow::Result<()> {
    let text = if args.type_name == "-" {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        line.trim().to_owned()
    } else {
        args.type_name.clone()
    };
    let name = resolve(set, &text)?;
    let comments = Comments {
        top: !args.no_comments,
        nested: args.all_comments,
    };
    let mut out = Vec::new();
    definition_lines(set, &name, comments, &mut out);
    out.iter().for_each(|line| outln!("{line}"));
    Ok(())
}

/// A type name the set holds, or a bad-input error that says what was expected and, when a
/// shipped name is close, suggests it.
fn resolve(set: &InterfaceSet, text: &str) -> Result<TypeName, FlagError> {
    let Some(name) = TypeName::parse(text) else {
        return Err(FlagError(format!(
            "`{text}` is not a type name: expected package/msg/Name, package/srv/Name or package/action/Name{}",
            suggestion(set, text)
        )));
    };
    if set.contains(&name) {
        return Ok(name);
    }
    Err(FlagError(format!("unknown type {text}{}", suggestion(set, text))))
}

/// `; did you mean a, b?` for up to three shipped names close to `text`, else nothing.
fn suggestion(set: &InterfaceSet, text: &str) -> String {
    let wanted = text.to_ascii_lowercase();
    let last = wanted.rsplit('/').next().unwrap_or_default().to_owned();
    let mut scored: Vec<(usize, String)> = interface_names(set)
        .into_iter()
        .filter_map(|name| {
            let full = name.to_string();
            let lower = full.to_ascii_lowercase();
            // The same type name in another package or namespace, or a full name a few edits away.
            let score = if name.name.to_ascii_lowercase() == last {
                0
            } else {
                let distance = edit_distance(&lower, &wanted);
                if distance > 3 {
                    return None;
                }
                distance
            };
            Some((score, full))
        })
        .collect();
    scored.sort();
    let names: Vec<String> = scored.into_iter().take(3).map(|(_, name)| name).collect();
    if names.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", names.join(", "))
    }
}

/// Levenshtein distance, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb)).min(row[j] + 1).min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Which comments `show` keeps.
#[derive(Debug, Clone, Copy)]
struct Comments {
    /// The type's own comments and blank lines.
    top: bool,
    /// Those of the nested types.
    nested: bool,
}

/// The lines `show` prints for `name`.
fn definition_lines(set: &InterfaceSet, name: &TypeName, comments: Comments, out: &mut Vec<String>) {
    // The message of each section of the file: one for a .msg, request and response for a
    // .srv, goal, result and feedback for an .action.
    let (text, sections): (String, Vec<&MessageDef>) = if let Some(def) = set.message(name) {
        let text = match &def.source {
            Source::File { text, .. } => text.clone(),
            // A derived type (`X_Request`, `X_Goal`, ...) has no file: its fields written out.
            Source::Implicit => set.message_text(name).unwrap_or_default(),
        };
        (text, vec![def])
    } else if let Some(service) = set.service(name) {
        let parts = [&service.request, &service.response];
        (
            source_text(&service.source),
            parts.iter().filter_map(|n| set.message(n)).collect(),
        )
    } else if let Some(action) = set.action(name) {
        let parts = [&action.goal, &action.result, &action.feedback];
        (
            source_text(&action.source),
            parts.iter().filter_map(|n| set.message(n)).collect(),
        )
    } else {
        return;
    };
    write_lines(set, &text, &sections, comments.top, comments.nested, 0, out);
}

fn source_text(source: &Source) -> String {
    match source {
        Source::File { text, .. } => text.clone(),
        Source::Implicit => String::new(),
    }
}

/// Writes `text` line by line at `indent` tabs, each nested field followed by its type's lines.
fn write_lines(
    set: &InterfaceSet,
    text: &str,
    sections: &[&MessageDef],
    show_comments: bool,
    nested_comments: bool,
    indent: usize,
    out: &mut Vec<String>,
) {
    let mut section = 0;
    for raw in text.lines() {
        let line = raw.trim_end();
        if line == "---" {
            section += 1;
            out.push(format!("{}{line}", "\t".repeat(indent)));
            continue;
        }
        let content = without_comment(line).trim_end();
        let printed = if show_comments {
            Some(line)
        } else if content.trim().is_empty() {
            None
        } else {
            Some(content)
        };
        match printed {
            Some("") => out.push(String::new()),
            Some(text) => out.push(format!("{}{text}", "\t".repeat(indent))),
            None => {}
        }
        let nested = sections.get(section).and_then(|def| nested_type_of(def, content));
        if let Some(nested) = nested
            && let Some(def) = set.message(&nested)
        {
            let text = match &def.source {
                Source::File { text, .. } => text.clone(),
                Source::Implicit => set.message_text(&nested).unwrap_or_default(),
            };
            write_lines(
                set,
                &text,
                &[def],
                nested_comments,
                nested_comments,
                indent + 1,
                out,
            );
        }
    }
}

/// The nested message type of the field a definition line declares, if it declares one.
fn nested_type_of(def: &MessageDef, content: &str) -> Option<TypeName> {
    let mut words = content.split_whitespace();
    let _type = words.next()?;
    let field = words.next()?;
    // `TYPE NAME=VALUE` is a constant, never nested.
    if field.contains('=') {
        return None;
    }
    def.fields
        .iter()
        .find(|f| f.name == field)
        .and_then(|f| match &f.ty.base {
            BaseType::Nested(name) => Some(name.clone()),
            _ => None,
        })
}

/// The line without its comment: up to the first `#` outside a quoted string.
fn without_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    for (index, ch) in line.char_indices() {
        match (quote, ch) {
            (None, '#') => return &line[..index],
            (None, '"' | '\'') => quote = Some(ch),
            (Some(open), _) if ch == open => quote = None,
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use crate::cmd::interface::*;

    fn show_lines(text: &str, comments: Comments) -> Vec<String> {
        let set = InterfaceSet::shipped();
        let mut out = Vec::new();
        definition_lines(set, &resolve(set, text).unwrap(), comments, &mut out);
        out
    }

    const DEFAULT: Comments = Comments {
        top: true,
        nested: false,
    };

    #[test]
    fn nested_types_are_expanded_under_their_field_without_their_comments() {
        let lines = show_lines("geometry_msgs/msg/Twist", DEFAULT);
        assert_eq!(
            lines,
            [
                "Vector3 linear",
                "\tfloat64 x",
                "\tfloat64 y",
                "\tfloat64 z",
                "Vector3 angular",
                "\tfloat64 x",
                "\tfloat64 y",
                "\tfloat64 z"
            ]
        );
    }

    #[test]
    fn the_top_type_keeps_its_comments_and_nested_types_lose_theirs() {
        let mut set = InterfaceSet::new();
        set.add_file(
            "demo_msgs",
            "msg/Inner.msg",
            "# inner\nint32 x  # the x\n\nint32 y\n",
        )
        .unwrap();
        set.add_file(
            "demo_msgs",
            "msg/Outer.msg",
            "# outer\nInner a # first\n\nint8 B=1\n",
        )
        .unwrap();
        let name = TypeName::parse("demo_msgs/msg/Outer").unwrap();
        let lines = |comments| {
            let mut out = Vec::new();
            definition_lines(&set, &name, comments, &mut out);
            out
        };
        assert_eq!(
            lines(DEFAULT),
            [
                "# outer",
                "Inner a # first",
                "\tint32 x",
                "\tint32 y",
                "",
                "int8 B=1"
            ]
        );
        let all = Comments {
            top: true,
            nested: true,
        };
        assert_eq!(
            lines(all),
            [
                "# outer",
                "Inner a # first",
                "\t# inner",
                "\tint32 x  # the x",
                "",
                "\tint32 y",
                "",
                "int8 B=1"
            ]
        );
        let none = Comments {
            top: false,
            nested: false,
        };
        assert_eq!(lines(none), ["Inner a", "\tint32 x", "\tint32 y", "int8 B=1"]);
    }

    #[test]
    fn services_and_actions_print_their_whole_file_by_section() {
        let lines = show_lines("example_interfaces/srv/AddTwoInts", DEFAULT);
        assert_eq!(lines, ["int64 a", "int64 b", "---", "int64 sum"]);
        let lines = show_lines(
            "example_interfaces/action/Fibonacci",
            Comments {
                top: false,
                nested: false,
            },
        );
        assert_eq!(
            lines,
            [
                "int32 order",
                "---",
                "int32[] sequence",
                "---",
                "int32[] sequence"
            ]
        );
    }

    #[test]
    fn deeper_nesting_indents_once_per_level() {
        let lines = show_lines(
            "std_msgs/msg/Header",
            Comments {
                top: false,
                nested: false,
            },
        );
        assert_eq!(
            lines,
            [
                "builtin_interfaces/Time stamp",
                "\tint32 sec",
                "\tuint32 nanosec",
                "string frame_id"
            ]
        );
    }

    #[test]
    fn unknown_types_are_bad_input_with_a_suggestion() {
        let set = InterfaceSet::shipped();
        let err = resolve(set, "std_msgs/msg/Twist").unwrap_err().to_string();
        assert!(err.contains("did you mean geometry_msgs/msg/Twist"), "{err}");
        let err = resolve(set, "geometry_msgs/msg/Twst").unwrap_err().to_string();
        assert!(err.contains("geometry_msgs/msg/Twist"), "{err}");
        let err = resolve(set, "nonsense").unwrap_err().to_string();
        assert!(err.contains("not a type name"), "{err}");
    }

    #[test]
    fn comments_are_found_outside_quotes_only() {
        assert_eq!(without_comment("string a \"x#y\" # c"), "string a \"x#y\" ");
        assert_eq!(without_comment("# all"), "");
        assert_eq!(without_comment("int32 x"), "int32 x");
    }
}
