// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#ifndef APNSKIT_TLS_H
#define APNSKIT_TLS_H
/*
 * TLS glue for APNsTransport: OpenSSL macros (SSL_CTX_set_min_proto_version,
 * SSL_set_tlsext_host_name, SSL_CTX_set_mode, ...) that Swift cannot import, plus C callbacks
 * (ALPN selection, info and certificate-request observers) that record what happened during
 * a handshake so `apnskit verify` can report it.
 */
#include <openssl/ssl.h>
#include <openssl/x509.h>

/* What the handshake observers saw on one SSL. Owned by the Swift connection object. */
typedef struct shim_tls_observations {
    int certificate_requested;  /* the server sent CertificateRequest (client side) */
    int alert_received;         /* a fatal/warning alert arrived from the peer */
    int alert_received_code;    /* its AlertDescription value */
    int alert_sent;
    int alert_sent_code;
} shim_tls_observations;

int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version);
int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version);
long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode);
/* Read-ahead: one read() takes every TLS record the socket holds, not 5 bytes then one body. */
void shim_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes);
int shim_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert);
int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name);
/* Installs the info callback and certificate callback that fill shim_tls_observations. */
void shim_SSL_CTX_install_observers(SSL_CTX *ctx);
/* Attaches `obs` to `ssl` (not owned; must outlive the SSL). */
int shim_SSL_set_observations(SSL *ssl, shim_tls_observations *obs);
/* Server side: choose "h2" when the client offers it, else continue without ALPN. */
void shim_SSL_CTX_select_alpn_h2(SSL_CTX *ctx);
/* "bad certificate" etc. for an AlertDescription value. */
const char *shim_alert_description(int code);
/* Numeric TLS version of the negotiated connection, e.g. TLS1_2_VERSION. */
int shim_SSL_version(const SSL *ssl);
/* Converts a DER ECDSA signature to raw r||s, each `size` bytes; returns 0 on failure. */
int shim_ecdsa_der_to_raw(const unsigned char *der, long der_len, unsigned char *out, int size);
#endif
