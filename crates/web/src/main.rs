//! `web`: serves the 2048 page, its JSON API and the autoplay stream (see
//! the library's docs and `docs/web.md`).

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;
use engine::endgame::Endgame;

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
    /// Where the games in play are kept between runs: written every minute
    /// and when the server stops (Ctrl-C, SIGTERM), read at start (default:
    /// $XDG_STATE_HOME/web2048/games.json, or ~/.local/state/web2048/games.json)
    #[arg(long, value_name = "FILE")]
    games: Option<PathBuf>,
    /// Keep no games between runs
    #[arg(long, conflicts_with = "games")]
    no_games_file: bool,
    /// Every preset plays the endgame tables' move on late-game chains, and
    /// the corner preset plays by its corner tables (docs/endgame.md). The
    /// tables are read before the server starts; any that are missing are
    /// built first, which can take many minutes and several GB of memory
    /// and disk (docs/endgame.md has measurements)
    #[arg(long)]
    endgame: bool,
    /// The endgame tables' folder (default: cli-ascii-2048/endgame in the
    /// user's cache folder, which `lab tables build` fills). The corner
    /// preset's tables are looked for there: built, the corner preset is
    /// the page's default; missing, the page offers to build them
    #[arg(long, value_name = "DIR")]
    tables: Option<PathBuf>,
    /// Only the corner tables of at most N states (a smaller set that
    /// plays worse, for a quick test)
    #[arg(long, value_name = "N")]
    tables_max_states: Option<u64>,
}

/// The tables every preset plays by, read or built into `dir`, with a line
/// per table built.
fn open_tables(dir: &std::path::Path) -> anyhow::Result<std::sync::Arc<Endgame>> {
    use engine::endgame::{Check, Formation, OpenEvent};
    use std::io::Write;
    let report = |event: OpenEvent<'_>| {
        if let Some(line) = event.log_line() {
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        }
    };
    // Each preset's in the presets' order, each table once, but the big
    // step table: a server's start never builds 21.8 GB, and in one set with
    // the corner preset's step it would be the one that preset reads (the
    // largest), playing corner-big under corner's name. corner-big is for
    // the terminal, the lab and Python.
    let mut formations: Vec<Formation> = Vec::new();
    let all = engine::Preset::ALL.into_iter().flat_map(|p| engine::formations_for(p, None));
    for formation in all.filter(|f| !f.is_layered()) {
        if !formations.contains(&formation) {
            formations.push(formation);
        }
    }
    Ok(engine::open_tables(dir, &formations, Check::Stamped, &report)?)
}

/// The default games file, where the platform has a state folder.
fn default_games_file() -> Option<PathBuf> {
    let state =
        std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    Some(state.join("web2048").join("games.json"))
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
    // The tables are ready before the server listens.
    let endgame = match (args.endgame, engine::tables_dir(args.tables.as_deref())) {
        (false, _) => None,
        (true, Some(dir)) => Some(open_tables(&dir)?),
        (true, None) => {
            anyhow::bail!("this system has no cache folder: choose one with --tables DIR")
        }
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
    let corner = engine::tables_dir(args.tables.as_deref())
        .map(|dir| web::CornerTables { dir, max_states: args.tables_max_states });
    let state =
        web::AppState::with_corner_tables(limits.clone(), args.weights, endgame, hosts, corner);
    let games = if args.no_games_file { None } else { args.games.or_else(default_games_file) };
    if let Some(path) = &games {
        restore(&state, path);
    }
    let app = web::router(std::sync::Arc::clone(&state));
    if !local.ip().is_loopback() {
        warn_exposed(local);
    }
    print_address(local);
    if let Some(path) = games.clone() {
        let state = std::sync::Arc::clone(&state);
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
            every.tick().await;
            loop {
                every.tick().await;
                keep(&state, &path);
            }
        });
    }
    web::serve(listener, app, &limits, stopped()).await.context("the server stopped")?;
    if let Some(path) = &games {
        keep(&state, path);
    }
    Ok(())
}

/// Completes on Ctrl-C or SIGTERM (never, if neither can be watched).
async fn stopped() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// Loads the games file; a file that cannot be read as one is moved aside
/// (nothing the players did is thrown away) with a warning.
fn restore(state: &web::AppState, path: &std::path::Path) {
    use std::io::Write;
    if !path.exists() {
        return;
    }
    if let Err(err) = state.load_games(path) {
        let aside = path.with_extension("json.bad");
        let moved = std::fs::rename(path, &aside).is_ok();
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: {err}; starting without its games{}",
            if moved {
                format!(" (the file is kept as {})", aside.display())
            } else {
                String::new()
            }
        );
    }
}

/// Writes the games file; a failure is a warning, not the end of the server.
fn keep(state: &web::AppState, path: &std::path::Path) {
    use std::io::Write;
    if let Err(err) = state.save_games(path) {
        let _ = writeln!(
            std::io::stderr().lock(),
            "warning: cannot keep the games in {}: {err}",
            path.display()
        );
    }
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
