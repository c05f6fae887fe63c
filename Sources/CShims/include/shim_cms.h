// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CMS_H
#define APNSKIT_CMS_H
/*
 * Helpers for reading a CMS SignedData (the envelope of Apple's provisioning profiles).
 * They hide the STACK_OF(CMS_SignerInfo) and STACK_OF(X509) macros so the Swift side only
 * ever owns the CMS_ContentInfo and the certificates it is handed.
 */
#include <openssl/cms.h>
#include <openssl/x509.h>

/* The number of SignerInfos in `cms` (0 when it is not SignedData or has none). */
int shim_cms_signer_count(CMS_ContentInfo *cms);

/* The certificate, among those embedded in `cms`, that the first SignerInfo names (by issuer
 * and serial or subject key id), with a new reference the caller frees; NULL when the
 * envelope does not carry it. */
X509 *shim_cms_signer_certificate(CMS_ContentInfo *cms);

/* The embedded content (eContent) of a SignedData: sets *data and returns its length, or -1
 * when there is none (detached signature or not SignedData). *data points into `cms`. */
long shim_cms_content(CMS_ContentInfo *cms, const unsigned char **data);

#endif
