/* SPDX-License-Identifier: GPL-2.0-only */
/* unit/contract-headers: see kstub.h */
#include "../kstub.h"
