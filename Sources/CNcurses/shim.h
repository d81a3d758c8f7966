// A header-only shim over ncursesw for Swift 6.
//
// Swift 6 rejects ncurses' mutable C globals (stdscr, COLORS, COLOR_PAIRS) and cannot
// import its function-like or composite macros (getmaxyx, COLOR_PAIR, A_BOLD, KEY_F).
// Each is wrapped here in a `static inline` function with a `pipescope_` prefix.
#ifndef PIPESCOPE_CNCURSES_SHIM_H
#define PIPESCOPE_CNCURSES_SHIM_H

// Package.swift does not ask pkg-config for ncursesw's flags (SwiftPM refuses its -D flags
// and warns on every build), so these defines are what make the wide-character API
// (cchar_t, setcchar, wget_wch) visible. pkg-config's two, _DEFAULT_SOURCE and
// _XOPEN_SOURCE=600, are not needed: glibc defaults to _DEFAULT_SOURCE, and
// _XOPEN_SOURCE=600 is there to turn on that same wide-character API.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <strings.h>
#include <wchar.h>
#if __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#elif __has_include(<curses.h>)
#include <curses.h>
#else
#error "Pipescope's terminal app needs the ncurses headers (ncursesw/curses.h or curses.h) and found neither. Install libncurses-dev: apt-get install -y libncurses-dev"
#endif

// MARK: - Globals

static inline FILE *pipescope_stdout(void) { return stdout; }
static inline FILE *pipescope_stdin(void) { return stdin; }

static inline WINDOW *pipescope_stdscr(void) { return stdscr; }
static inline int pipescope_width(WINDOW *w) { int y, x; getmaxyx(w, y, x); (void)y; return x; }
static inline int pipescope_height(WINDOW *w) { int y, x; getmaxyx(w, y, x); (void)x; return y; }
static inline int pipescope_colors(void) { return COLORS; }
static inline int pipescope_color_pairs(void) { return COLOR_PAIRS; }
static inline int pipescope_has_colors(void) { return has_colors() ? 1 : 0; }
static inline int pipescope_set_escdelay(int ms) { return set_escdelay(ms); }

// MARK: - Attributes and colours

static inline attr_t pipescope_a_normal(void) { return A_NORMAL; }
static inline attr_t pipescope_a_bold(void) { return A_BOLD; }
static inline attr_t pipescope_a_dim(void) { return A_DIM; }
static inline attr_t pipescope_a_reverse(void) { return A_REVERSE; }
static inline attr_t pipescope_a_underline(void) { return A_UNDERLINE; }
static inline attr_t pipescope_color_pair(int n) { return (attr_t)COLOR_PAIR(n); }

/// Draws one grapheme (a spacing character plus combining characters, NUL-terminated)
/// at (y, x) with the given attributes and colour pair.
static inline int pipescope_put_cell(WINDOW *w, int y, int x, const wchar_t *text, attr_t attrs, short pair) {
    cchar_t c;
    if (setcchar(&c, text, attrs, pair, NULL) == ERR) return ERR;
    return mvwadd_wch(w, y, x, &c);
}

// MARK: - Keys and results

static inline int pipescope_ok(void) { return OK; }
static inline int pipescope_err(void) { return ERR; }
static inline int pipescope_key_code_yes(void) { return KEY_CODE_YES; }
static inline int pipescope_key_f(int n) { return KEY_F(n); }
static inline int pipescope_key_f0(void) { return KEY_F0; }
static inline int pipescope_key_up(void) { return KEY_UP; }
static inline int pipescope_key_down(void) { return KEY_DOWN; }
static inline int pipescope_key_left(void) { return KEY_LEFT; }
static inline int pipescope_key_right(void) { return KEY_RIGHT; }
static inline int pipescope_key_ppage(void) { return KEY_PPAGE; }
static inline int pipescope_key_npage(void) { return KEY_NPAGE; }
static inline int pipescope_key_home(void) { return KEY_HOME; }
static inline int pipescope_key_end(void) { return KEY_END; }
static inline int pipescope_key_enter(void) { return KEY_ENTER; }
static inline int pipescope_key_btab(void) { return KEY_BTAB; }
static inline int pipescope_key_backspace(void) { return KEY_BACKSPACE; }
static inline int pipescope_key_dc(void) { return KEY_DC; }
static inline int pipescope_key_resize(void) { return KEY_RESIZE; }

// MARK: - Locale

/// True when the current locale's codeset is UTF-8 (call after setlocale).
static inline int pipescope_locale_is_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    if (codeset == NULL) return 0;
    return (strcasecmp(codeset, "UTF-8") == 0 || strcasecmp(codeset, "utf8") == 0) ? 1 : 0;
}

#endif
