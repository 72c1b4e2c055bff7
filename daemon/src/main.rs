//! `cuzk-daemon`: serves `cuzk.v1.ProvingEngine` (Curio's proving client)
//! until SIGTERM or SIGINT; see `cuzk_daemon::config` for its settings.

use anyhow::Result;
use cuzk_daemon::{
    config::{Config, USAGE},
    serve,
};
use tokio::signal::unix::{signal, SignalKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    if let Err(e) = run(args) {
        eprintln!("cuzk-daemon: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: Vec<String>) -> Result<()> {
    fil_logger::maybe_init();
    let config = Config::from_args(args)?;
    config.apply()?;
    let (listen, limits) = (config.listen()?, config.limits()?);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let (mut term, mut int) = (signal(SignalKind::terminate())?, signal(SignalKind::interrupt())?);
        let shutdown = async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
            log::info!("cuzk-daemon: shutting down; requests in progress finish first");
        };
        serve(listen, limits, shutdown).await
    })
}
