// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CBUILDINFO_H
#define APNSKIT_CBUILDINFO_H
/*
 * What this build is: the release version (the repository's VERSION file) and the commit it
 * was built from. Package.swift passes both as defines to this target only, so a new commit
 * recompiles one C file and relinks, instead of rebuilding every module.
 */
const char *apnskit_build_version(void);
/* The commit's short hash, or "unknown" when built outside a git checkout (a source tarball). */
const char *apnskit_build_commit(void);
#endif
