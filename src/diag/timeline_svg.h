/* `cuzk diag timeline ... -o timeline.svg`: the timeline drawn as lanes
 * (see timeline_svg.c for the layout). */
#ifndef CUZK_DIAG_TIMELINE_SVG_H
#define CUZK_DIAG_TIMELINE_SVG_H

#include "diag/timeline_data.h"

/* Writes the picture of t (summarised in s) to path. */
int timeline_write_svg(const timeline_data *t, const timeline_summary *s, const char *path, cuzk_error *err);

#endif
