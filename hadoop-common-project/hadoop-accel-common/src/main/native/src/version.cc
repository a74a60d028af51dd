#include "hadoop_accel/accel.h"

const char *hacc_version(void) { return HACC_VERSION_STRING; }
