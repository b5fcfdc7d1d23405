/* The host's implementation of ip_host.place (geometry.h): fit / fill / aspect-fill, computed in one place for
 * the host's resampler and, through the service, for every plugin that renders at size. */
#ifndef IMAGEPIPE_HOST_GEOMETRY_H
#define IMAGEPIPE_HOST_GEOMETRY_H

#include <stdint.h>
#include "imagepipe/geometry.h"

/* Fills every field of *placement (struct_size included) for the request's source and box. */
void host_geometry_place(double source_width, double source_height, uint32_t box_width, uint32_t box_height,
                         ip_scale_mode mode, int allow_upscale, ip_placement *placement);

#endif
