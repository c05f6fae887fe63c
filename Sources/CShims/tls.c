// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
#include "CShims.h"
#include <string.h>
#include <pthread.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>

int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_min_proto_version(ctx, version); }
int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) { return (int)SSL_CTX_set_max_proto_version(ctx, version); }
long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
void shim_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) { SSL_CTX_set_read_ahead(ctx, yes); }
int shim_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *cert) { return (int)SSL_CTX_add1_chain_cert(ctx, cert); }
int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
int shim_SSL_version(const SSL *ssl) { return SSL_version(ssl); }

/* Two event loops may set up their first connection at the same moment: pthread_once makes the
 * index exist exactly once and publishes it to every thread (a plain static would race). */
static int observations_ex_index = -1;
static pthread_once_t observations_once = PTHREAD_ONCE_INIT;
static void make_observations_index(void) {
    observations_ex_index = SSL_get_ex_new_index(0, "tls observations", NULL, NULL, NULL);
}
static int observations_index(void) {
    pthread_once(&observations_once, make_observations_index);
    return observations_ex_index;
}

int shim_SSL_set_observations(SSL *ssl, shim_tls_observations *obs) {
    return SSL_set_ex_data(ssl, observations_index(), obs);
}

static void info_callback(const SSL *ssl, int where, int ret) {
    if (!(where & SSL_CB_ALERT)) return;
    shim_tls_observations *obs = SSL_get_ex_data(ssl, observations_index());
    if (obs == NULL) return;
    int code = ret & 0xff;
    /* close_notify (0) is not a failure worth reporting. */
    if (code == 0) return;
    if (where & SSL_CB_READ) { if (!obs->alert_received) { obs->alert_received = 1; obs->alert_received_code = code; } }
    else { if (!obs->alert_sent) { obs->alert_sent = 1; obs->alert_sent_code = code; } }
}

/* In client mode OpenSSL calls the cert callback only when the server sent CertificateRequest. */
static int cert_callback(SSL *ssl, void *arg) {
    (void)arg;
    if (SSL_is_server(ssl)) return 1;
    shim_tls_observations *obs = SSL_get_ex_data(ssl, observations_index());
    if (obs != NULL) obs->certificate_requested = 1;
    return 1;
}

void shim_SSL_CTX_install_observers(SSL_CTX *ctx) {
    (void)observations_index();
    SSL_CTX_set_info_callback(ctx, info_callback);
    SSL_CTX_set_cert_cb(ctx, cert_callback, NULL);
}

static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const unsigned char h2[] = { 2, 'h', '2' };
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, outlen, h2, sizeof h2, in, inlen) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    /* The client offered only other protocols (say http/1.1): answering in HTTP/2 anyway
       would feed it bytes it cannot read. RFC 7301 section 3.2: refuse with the
       no_application_protocol alert. A client that offers no ALPN at
       all never gets here (HTTP/2 with prior knowledge). */
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

void shim_SSL_CTX_select_alpn_h2(SSL_CTX *ctx) { SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL); }

const char *shim_alert_description(int code) { return SSL_alert_desc_string_long(code); }

int shim_ecdsa_der_to_raw(const unsigned char *der, long der_len, unsigned char *out, int size) {
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, der_len);
    if (sig == NULL) return 0;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    int ok = BN_bn2binpad(r, out, size) == size && BN_bn2binpad(s, out + size, size) == size;
    ECDSA_SIG_free(sig);
    return ok;
}
