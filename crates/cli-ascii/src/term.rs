//! The terminal while a full-screen mode runs: raw mode, the alternate
//! screen and a hidden cursor, restored on every way out.

use std::io::{self, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::{cursor, execute, terminal};

/// Whether the terminal is in our full-screen state, so that restoring it
/// twice (from the panic hook, then from the guard's drop while unwinding)
/// does nothing the second time.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Puts the terminal in full-screen mode until dropped.
///
/// Ctrl-C needs no signal handler: raw mode turns it into a key event,
/// which the modes read as "quit", so the guard drops normally. A panic
/// restores the terminal from the panic hook, before the message prints,
/// so the message is readable on the normal screen.
#[derive(Debug)]
pub(crate) struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Enters raw mode, the alternate screen, and hides the cursor.
    pub(crate) fn enter() -> io::Result<TerminalGuard> {
        install_panic_hook();
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        // From here on, the guard's drop undoes whatever succeeded.
        let guard = TerminalGuard { _private: () };
        execute!(io::stdout(), terminal::EnterAlternateScreen, cursor::Hide)?;
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves full-screen mode, if it is on.
fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let mut out = io::stdout();
        let _ = execute!(out, cursor::Show, terminal::LeaveAlternateScreen);
        let _ = terminal::disable_raw_mode();
        let _ = out.flush();
    }
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Draws `lines` from the top-left corner, clearing what the last frame
/// left beyond them. In raw mode a newline does not return the carriage,
/// so each line is placed with its own cursor move.
pub(crate) fn draw_frame(out: &mut impl Write, lines: &[String]) -> io::Result<()> {
    use crossterm::queue;
    use crossterm::style::Print;
    use crossterm::terminal::{Clear, ClearType};

    for (row, line) in lines.iter().enumerate() {
        let row = u16::try_from(row).unwrap_or(u16::MAX);
        queue!(out, cursor::MoveTo(0, row), Print(line), Clear(ClearType::UntilNewLine))?;
    }
    queue!(out, Clear(ClearType::FromCursorDown))?;
    out.flush()
}
