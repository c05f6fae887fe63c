// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "CBuildInfo.h"

/* The defines are bare tokens (0.2.0, 1a2b3c4): a build manifest passes no quotes reliably. */
#define APNSKIT_STRINGIFY_(x) #x
#define APNSKIT_STRINGIFY(x) APNSKIT_STRINGIFY_(x)

const char *apnskit_build_version(void) { return APNSKIT_STRINGIFY(APNSKIT_VERSION); }
const char *apnskit_build_commit(void) { return APNSKIT_STRINGIFY(APNSKIT_COMMIT); }
