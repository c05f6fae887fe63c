// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "loop_thread.h"

static _Thread_local void *current_loop = 0;

void shim_set_current_loop(void *loop) { current_loop = loop; }
void *shim_current_loop(void) { return current_loop; }
