#include "trace/trace-hw_sfab.h"
