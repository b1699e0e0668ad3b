/* A log watched as it is written, so that tests wait for an event the code
 * logs (a calculation under way, a partition stopped) instead of sleeping:
 * a FIFO at path, read line by line by a thread of its own. Start the
 * watch, then open the logger on path (cuzk_logger_open: each open waits
 * for the other end); close the logger before log_watch_closed. */
#ifndef CUZK_TESTS_LOG_WATCH_H
#define CUZK_TESTS_LOG_WATCH_H

typedef struct log_watch log_watch;

/* Makes the FIFO (path must not exist) and starts its reader; NULL when
 * it cannot. */
log_watch *log_watch_start(const char *path);
/* Waits until n lines containing needle have been read: 1, or 0 when the
 * writer closed the FIFO first. */
int log_watch_wait(log_watch *w, const char *needle, int n);
/* Lines read so far containing needle. */
int log_watch_count(log_watch *w, const char *needle);
/* Waits for the writer to close (every line is read then). */
void log_watch_closed(log_watch *w);
/* Frees w and removes the FIFO (after log_watch_closed). */
void log_watch_free(log_watch *w);

#endif
