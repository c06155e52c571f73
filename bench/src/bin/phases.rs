//! `phases FILE`: where `agc check` spends its time on one document, phase by phase
//! (load, detect + schema, semantic checks, lowering + analyses, rendering, plan). Prints
//! figures; asserts nothing.

use agc::diag::render::{self, Format};
use agc::source::{Limits, SourceMap, load};
use std::time::Instant;

/// The allocator the `agc` binary uses, so the phases add up to its figures.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // The same process settings as the agc binary, so the figures compare.
    agc::memory::tune();
    agc::memory::tune_for_inputs(std::env::args_os().skip(1));
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: phases FILE");
        std::process::exit(2);
    };
    let mut sources = SourceMap::new();
    let t = Instant::now();
    let (file, loaded) = load::load_path(&mut sources, path.as_ref(), &path, Limits::default())
        .unwrap_or_else(|d| panic!("{}", d.message));
    let load_s = t.elapsed();
    let rss_loaded = peak_rss();
    let doc = loaded.doc.expect("a document");
    let t = Instant::now();
    let dialect = agc::dialect::detect(&doc).expect("a dialect");
    let schema = agc::schema::validate(dialect, &doc);
    let schema_s = t.elapsed();
    let t = Instant::now();
    let mut exprs = agc::front::ags::ExprCache::default();
    let semantic = agc::front::ags::check_into(&doc, &sources.get(file).text, &mut exprs);
    let semantic_s = t.elapsed();
    let rss_checked = peak_rss();
    let mut ws = agc::front::ags::refs::Workspace::single(doc);
    // Lowering takes the parsed expressions out of the cache, and it runs twice below (alone,
    // then with the analyses): each run gets the full cache, as `agc build` does.
    *ws.exprs.get_mut() = exprs.clone();
    let t = Instant::now();
    let (graph, _) = agc::front::ags::lower::lower(&ws, &sources);
    let lower_only = t.elapsed();
    let rss_lowered = peak_rss();
    let t = Instant::now();
    let order = agc::analysis::order::topological(&graph).unwrap_or_default();
    let bounds = agc::analysis::bounds::compute(&graph, &order);
    let analyses = t.elapsed();
    let t = Instant::now();
    let digest = agc::canon::graph_digest(&ws.docs[0].value).unwrap_or_default();
    let digest_s = t.elapsed();
    *ws.exprs.get_mut() = exprs;
    let t = Instant::now();
    let (lowered, _) = agc::front::FrontEnd::lower(&agc::front::ags::Ags, &sources, &ws, true);
    let compiled = lowered
        .into_iter()
        .next()
        .and_then(|l| agc::compile::analyse(l).0);
    let lower_s = t.elapsed();
    let _ = (bounds, digest);
    drop(graph);
    let t = Instant::now();
    let mut diags = schema;
    diags.extend(semantic);
    let text = render::render(Format::Human, &diags, &sources, render::Options::default());
    let render_s = t.elapsed();
    let rss_rendered = peak_rss();
    // The plan, streamed (as `agc build -o` does) into a sink: formatting cost only, no I/O.
    let t = Instant::now();
    let mut sink = std::io::BufWriter::new(std::io::sink());
    if let Some(c) = &compiled {
        agc::compile::write_plan(c, &sources, &path, &mut sink).expect("writing to a sink");
    }
    let plan_s = t.elapsed();
    let nodes = compiled.map_or(0, |c| c.graph.nodes.len());
    println!("file      {path}");
    println!("nodes     {nodes}");
    println!("diags     {} ({} bytes rendered)", diags.len(), text.len());
    for (name, d) in [
        ("load", load_s),
        ("schema", schema_s),
        ("semantic", semantic_s),
        ("  lower", lower_only),
        ("  order+bounds", analyses),
        ("  digest", digest_s),
        ("lower+analyses", lower_s),
        ("render", render_s),
        ("plan", plan_s),
    ] {
        println!("{name:<15} {:>8.3} s", d.as_secs_f64());
    }
    println!(
        "peak RSS after load {rss_loaded} MiB, checks {rss_checked} MiB, lowering {rss_lowered} MiB, render {rss_rendered} MiB, end {} MiB",
        peak_rss()
    );
}

/// Peak resident set size so far in MiB (`VmHWM`; 0 where /proc is absent).
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}
