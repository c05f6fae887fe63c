// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_CA_H
#define APNSKIT_CA_H
/*
 * Helpers for building certificates (the mock "Apple WWDR" CA and its fixtures).
 * They wrap OpenSSL macros (X509V3_set_ctx_nodb, OPENSSL_free of intermediates) and hide the
 * temporaries (ASN1_OBJECT, ASN1_OCTET_STRING, X509_EXTENSION, BIGNUM) each step needs, so the
 * Swift side only ever owns the X509 it is building. All return 1 on success, 0 on failure
 * with OpenSSL's error queue describing why.
 */
#include <stdint.h>
#include <openssl/x509.h>

/* Adds an extension written in openssl.cnf syntax ("critical,digitalSignature",
 * "DNS:localhost,IP:127.0.0.1", "keyid:always") for `nid`. `issuer` may be NULL for a
 * self-signed certificate (the certificate is then its own issuer for keyid lookups). */
int shim_x509_add_ext_conf(X509 *cert, X509 *issuer, int nid, const char *value);

/* Adds an extension with a dotted `oid` whose value (the OCTET STRING's contents) is the raw
 * DER `der` of `length` bytes, taken as is: this is how private extensions such as Apple's
 * 1.2.840.113635.100.6.3.x are written, and how tests write deliberately malformed ones. */
int shim_x509_add_ext_der(X509 *cert, const char *oid, int critical,
                          const unsigned char *der, int length);

/* Sets notBefore/notAfter from UNIX seconds (UTCTime before 2050, GeneralizedTime after). */
int shim_x509_set_validity(X509 *cert, int64_t not_before, int64_t not_after);

/* Sets a random positive 127-bit serial number, as CAs do since the MD5 collision attacks. */
int shim_x509_set_random_serial(X509 *cert);

#endif
