//! `zshm topic list`: the topics the liveliness tokens announce, like `ros2 topic list` (`-t`
//! types, `--count-topics`, `-a` hidden topics, `-v` publishers and subscribers per topic).

use std::process::ExitCode;

use zshm::ros::graph::TopicSummary;

use crate::cli::GraphArgs;
use crate::support::graph;
use crate::support::out::outln;

/// `zshm topic list`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How to ask the graph.
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Also print each topic's type.
    #[arg(short = 't', long)]
    pub show_types: bool,
    /// Only print how many topics there are.
    #[arg(long, visible_alias = "count")]
    pub count_topics: bool,
    /// Include hidden topics (a part of the name starts with `_`).
    #[arg(short = 'a', long, visible_alias = "all")]
    pub include_hidden_topics: bool,
    /// Published and subscribed topics, with their publisher and subscriber counts.
    #[arg(short = 'v', long)]
    pub verbose: bool,
}

/// Prints the topics.
pub async fn run(args: Args) -> anyhow::Result<ExitCode> {
    let topics: Vec<TopicSummary> = graph::snapshot(&args.graph)
        .await?
        .graph
        .topics()
        .into_iter()
        .filter(|topic| args.include_hidden_topics || !graph::is_hidden(&topic.name))
        .collect();
    if args.count_topics {
        outln!("{}", topics.len());
    } else if args.graph.json {
        outln!("{}", serde_json::to_string(&topics)?);
    } else if args.verbose {
        for (title, what, count) in [
            (
                "Published",
                "publisher",
                (|t: &TopicSummary| t.publishers) as fn(&TopicSummary) -> usize,
            ),
            ("Subscribed", "subscriber", |t: &TopicSummary| t.subscribers),
        ] {
            outln!("{title} topics:");
            for topic in topics.iter().filter(|t| count(t) > 0) {
                let n = count(topic);
                let plural = if n > 1 { "s" } else { "" };
                outln!(
                    " * {} [{}] {n} {what}{plural}",
                    topic.name,
                    topic.types.join(", ")
                );
            }
            outln!();
        }
    } else {
        for topic in &topics {
            if args.show_types {
                outln!("{} [{}]", topic.name, topic.types.join(", "));
            } else {
                outln!("{}", topic.name);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
