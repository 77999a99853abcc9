/* The tui reporter's terminfo check, apart from tui.c: term.h defines
 * every capability name as a macro ("lines", "columns", "bell"). */
#include <curses.h>
#include <term.h>

int shb_tui_term_known(int fd);

/* [main] 1 when terminfo has an entry for $TERM, checked without
 * touching the screen. */
int shb_tui_term_known(int fd)
{
	int err = 0;
	if (setupterm(NULL, fd, &err) != OK)
		return 0;
	del_curterm(cur_term);
	return 1;
}
