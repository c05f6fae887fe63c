// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
// The one import a push service needs (issue 21): `import APNs` brings the client, its
// configuration, notifications, results and errors, and loading credentials - and nothing of
// the transport. Every other declaration of the package is `package`-level, so no name here
// clashes with NIO (`EventLoop`), NIOSSL (`TLSConfiguration`) or swift-certificates
// (`Certificate`, `PrivateKey`) in an app that imports those too.
@_exported import APNsCredentials
@_exported import APNsProtocol
@_exported import APNsSender
