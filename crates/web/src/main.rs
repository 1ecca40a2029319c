//! `web`: serves the 2048 page, its JSON API and the autoplay stream (see
//! the library's docs and `docs/web.md`).

use std::net::SocketAddr;
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
    /// The address or host name to listen on (localhost, 127.0.0.1, ::1, a
    /// name of this machine, 0.0.0.0 for all interfaces). Anything but
    /// loopback lets other machines play and watch (and spend this machine's
    /// CPU on searches). The server answers requests that name it by this
    /// name (and, on loopback, localhost, 127.0.0.1 and [::1]) only.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
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
    let addr = resolve(&args.host, args.port).await?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr().context("cannot read the bound address")?;
    // A name the user typed (not an address) is one the page may be opened by.
    let names: Vec<String> =
        if args.host.parse::<std::net::IpAddr>().is_ok() { Vec::new() } else { vec![args.host] };
    let hosts = web::Hosts::listening_on(local, &names);
    let app = web::router(web::AppState::new(limits.clone(), args.weights, hosts));
    if !local.ip().is_loopback() {
        warn_exposed(local);
    }
    print_address(local);
    web::serve(listener, app, &limits, async {
        // If the handler cannot be installed, serve until killed.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    })
    .await
    .context("the server stopped")
}

/// The address of `host` (an address or a name) at `port`: the first the
/// resolver gives, IPv4 first.
async fn resolve(host: &str, port: u16) -> anyhow::Result<SocketAddr> {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let mut addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
        .await
        .with_context(|| format!("cannot resolve --host {host}"))?
        .collect();
    addrs.sort_by_key(SocketAddr::is_ipv6);
    addrs.into_iter().next().with_context(|| format!("--host {host} has no address"))
}

/// Says on stderr that other machines can reach the server.
fn warn_exposed(addr: SocketAddr) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "warning: listening on {addr}, not loopback: anyone who can reach this machine can \
         play and watch games here and spend its CPU on searches"
    );
}

/// The one line scripts wait for (the end-to-end test reads the port).
#[allow(clippy::print_stdout, reason = "the address is the program's output")]
fn print_address(addr: SocketAddr) {
    use std::io::Write;
    println!("listening on http://{addr}");
    let _ = std::io::stdout().flush();
}
