//! `web`: serves the 2048 page, its JSON API and the autoplay stream (see
//! the library's docs and `docs/web.md`).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

/// Play 2048 in the browser, with the solver's hints and autoplay.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// The port to listen on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8048)]
    port: u16,
    /// The address to listen on. Anything but loopback lets other machines
    /// play (and spend this machine's CPU on searches).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// The learned presets' weights file (default: the shipped one).
    #[arg(long)]
    weights: Option<PathBuf>,
    /// The time budget of one search, in milliseconds.
    #[arg(long, default_value_t = 250, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    search_ms: u64,
}

/// An error ends the server with one `error: ...` line and exit code 1,
/// as the CLI does (anyhow's own report from `main` would add a backtrace
/// under `RUST_BACKTRACE=1`).
#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    match serve(args).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr().lock(), "error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let limits = web::Limits {
        search_budget: std::time::Duration::from_millis(args.search_ms),
        ..web::Limits::default()
    };
    let app = web::router(web::AppState::new(limits, args.weights));
    let addr = SocketAddr::new(args.host, args.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr().context("cannot read the bound address")?;
    print_address(local);
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            // If the handler cannot be installed, serve until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await
        .context("the server stopped")
}

/// The one line scripts wait for (the end-to-end test reads the port).
#[allow(clippy::print_stdout, reason = "the address is the program's output")]
fn print_address(addr: SocketAddr) {
    use std::io::Write;
    println!("listening on http://{addr}");
    let _ = std::io::stdout().flush();
}
