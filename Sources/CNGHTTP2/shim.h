// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CNGHTTP2_SHIM_H
#define APNSKIT_CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
#endif
