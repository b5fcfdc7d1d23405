/* libjpeg glue: error handling by longjmp stays in C. */
#include "jpeg_codec.h"
