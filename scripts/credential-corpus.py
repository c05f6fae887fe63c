#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Writes a corpus of credential files with tools other than apnskit, and a manifest of what
each writer put in, for Tests/InspectCheckTests/CredentialCorpusTests.swift.

    scripts/credential-corpus.py OUTDIR

Certificates and keys are made with Python `cryptography` (an Apple-like push leaf under a
corpus CA, an expired leaf, a second identity, a CA certificate with its key); the files users
meet are then written by the independent writers: the openssl CLI (pkcs12 -export variants,
pkcs8/rsa/ec encryption variants, pkcs12 -nodes output with Bag Attributes, x509 -text),
Java keytool, GnuTLS certtool, NSS pk12util and cryptography's PKCS#12 serializer, plus the
text variants editors make (BOM, CRLF, trailing spaces, 76-column base64, no final newline).

manifest.json lists every file with: writer, format, passphrase (null when none is needed),
certificates, keys, identities (key + certificate pairs), friendlyName (of the first identity,
when the writer was given one), subject (common name of the
certificate the file is about), notAfter (YYYY-MM-DD), keyMatch, expired, ca, and gate:
the status `apnskit check --min-days 0 --require-key --strict --ca-file ca.pem` must give it
(OK, WARN or FAIL).
A missing writer stops the script with exit 2 and a sentence naming the package to install.
"""
import datetime
import json
import os
import shutil
import subprocess
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

PASS = "corpus-pass"
WRITERS = {
    "openssl": "openssl (Debian package openssl)",
    "keytool": "keytool (Debian package openjdk-17-jdk-headless)",
    "certtool": "certtool (Debian package gnutls-bin)",
    "pk12util": "pk12util (Debian package libnss3-tools)",
    "certutil": "certutil (Debian package libnss3-tools)",
}
SANDBOX_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.3.1")
PRODUCTION_OID = x509.ObjectIdentifier("1.2.840.113635.100.6.3.2")
NOW = datetime.datetime.now(datetime.timezone.utc)


def fail(sentence):
    print(f"credential-corpus: {sentence}", file=sys.stderr)
    sys.exit(2)


def run(*args, stdin=None):
    result = subprocess.run(list(args), input=stdin, capture_output=True)
    if result.returncode != 0:
        fail(f"{' '.join(args)} failed ({result.returncode}): {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def name(cn, uid=None, ou="CORPUS1234"):
    parts = []
    if uid:
        parts.append(x509.NameAttribute(NameOID.USER_ID, uid))
    parts += [x509.NameAttribute(NameOID.COMMON_NAME, cn), x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, ou),
              x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Corpus Org"), x509.NameAttribute(NameOID.COUNTRY_NAME, "US")]
    return x509.Name(parts)


def certificate(subject, key, issuer, issuer_key, days_from, days_to, ca=False, push=None):
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(NOW + datetime.timedelta(days=days_from))
               .not_valid_after(NOW + datetime.timedelta(days=days_to))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    for oid in push or []:
        builder = builder.add_extension(x509.UnrecognizedExtension(oid, b"\x05\x00"), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def pem_cert(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def pem_key(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


class Corpus:
    def __init__(self, out):
        self.out = out
        self.entries = []
        os.makedirs(os.path.join(out, "work"), exist_ok=True)

    def path(self, file):
        return os.path.join(self.out, file)

    def work(self, file):
        return os.path.join(self.out, "work", file)

    def write(self, file, data):
        with open(self.path(file), "wb") as handle:
            handle.write(data)

    def add(self, file, writer, format, passphrase, certificates, keys, identities, subject, not_after,
            key_match, expired=False, ca=False, gate="OK", unsupported=None, friendly_name=None):
        self.entries.append({
            "file": file, "writer": writer, "format": format, "passphrase": passphrase,
            "certificates": certificates, "keys": keys, "identities": identities, "subject": subject,
            "notAfter": not_after.strftime("%Y-%m-%d") if not_after else None, "keyMatch": key_match,
            "expired": expired, "ca": ca, "gate": gate, "unsupported": unsupported,
            "friendlyName": friendly_name,
        })


def main():
    if len(sys.argv) != 2:
        fail("usage: credential-corpus.py OUTDIR")
    for tool, package in WRITERS.items():
        if shutil.which(tool) is None:
            fail(f"{tool} is not installed; install {package} (scripts/setup.sh does).")
    out = sys.argv[1]
    shutil.rmtree(out, ignore_errors=True)
    c = Corpus(out)

    # The credentials themselves.
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_name = name("Corpus WWDR-like CA", ou="G4")
    ca = certificate(ca_name, ca_key, ca_name, ca_key, -10, 3650, ca=True)
    a_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    a_cn = "Apple Development IOS Push Services: com.example.corpus"
    a = certificate(name(a_cn, "com.example.corpus"), a_key, ca_name, ca_key, -1, 400, push=[SANDBOX_OID])
    b_key = ec.generate_private_key(ec.SECP256R1())
    b_cn = "Apple Push Services: com.example.second"
    b = certificate(name(b_cn, "com.example.second"), b_key, ca_name, ca_key, -1, 200, push=[SANDBOX_OID, PRODUCTION_OID])
    e_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    e_cn = "Apple Production IOS Push Services: com.example.expired"
    e = certificate(name(e_cn, "com.example.expired"), e_key, ca_name, ca_key, -400, -5, push=[PRODUCTION_OID])
    s_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    s_name = name("Self-made CA posing as push", ou="SELF")
    s = certificate(s_name, s_key, s_name, s_key, -1, 365, ca=True)
    # Apple's sandbox extension under a name with no push prefix (the type line must agree).
    n_key = ec.generate_private_key(ec.SECP256R1())
    n_cn = "Corpus renamed push certificate"
    n = certificate(name(n_cn, "com.example.renamed"), n_key, ca_name, ca_key, -1, 300, push=[SANDBOX_OID])
    for file, data in [("ca.pem", pem_cert(ca)), ("a.crt", pem_cert(a)), ("a.key", pem_key(a_key)), ("b.crt", pem_cert(b)),
                       ("b.key", pem_key(b_key)), ("e.crt", pem_cert(e)), ("e.key", pem_key(e_key))]:
        with open(c.work(file), "wb") as handle:
            handle.write(data)
    c.write("ca.pem", pem_cert(ca))
    a_after, b_after, e_after = a.not_valid_after_utc, b.not_valid_after_utc, e.not_valid_after_utc

    # openssl pkcs12 -export variants: identity A with the CA as chain.
    def export(file, extra, passphrase, cert="a.crt", key="a.key"):
        args = ["openssl", "pkcs12", "-export", "-in", c.work(cert), "-inkey", c.work(key), "-certfile", c.work("ca.pem"),
                "-out", c.path(file), "-passout", f"pass:{passphrase}"] + extra
        run(*args)
    variants = [
        ("openssl-default.p12", "pkcs12 -export (AES-256, SHA-256 MAC)", [], PASS),
        ("openssl-legacy.p12", "pkcs12 -export -legacy (RC2-40/3DES)", ["-legacy"], PASS),
        ("openssl-descert.p12", "pkcs12 -export -descert", ["-descert"], PASS),
        ("openssl-pbe.p12", "pkcs12 -export -keypbe PBE-SHA1-3DES -certpbe PBE-SHA1-RC2-40", ["-legacy", "-keypbe", "PBE-SHA1-3DES", "-certpbe", "PBE-SHA1-RC2-40"], PASS),
        ("openssl-aes128.p12", "pkcs12 -export -keypbe AES-128-CBC -certpbe AES-128-CBC", ["-keypbe", "AES-128-CBC", "-certpbe", "AES-128-CBC"], PASS),
        ("openssl-nomac.p12", "pkcs12 -export -nomac", ["-nomac"], PASS),
        ("openssl-none.p12", "pkcs12 -export -keypbe NONE -certpbe NONE", ["-keypbe", "NONE", "-certpbe", "NONE"], PASS),
        ("openssl-empty.p12", "pkcs12 -export, empty password", [], ""),
        ("openssl-nopass.p12", "pkcs12 -export -keypbe NONE -certpbe NONE -nomac, no password", ["-keypbe", "NONE", "-certpbe", "NONE", "-nomac"], ""),
        ("openssl-named.p12", "pkcs12 -export -name -caname", ["-name", "Push A", "-caname", "Corpus CA"], PASS),
    ]
    for file, format, extra, passphrase in variants:
        export(file, extra, passphrase)
        c.add(file, "openssl", format, passphrase or None, 2, 1, 1, a_cn, a_after, True,
              friendly_name="Push A" if "-name" in extra else None)
    # -inkey with extra leaf certificates (whose keys are not given): one identity, three certificates.
    with open(c.work("a-and-b.crt"), "wb") as handle:
        handle.write(pem_cert(a) + pem_cert(b))
    export("openssl-extra-leaf.p12", ["-name", "Push A"], PASS, cert="a-and-b.crt")
    c.add("openssl-extra-leaf.p12", "openssl", "pkcs12 -export -inkey + an extra leaf certificate", PASS, 3, 1, 1, a_cn, a_after, True)
    export("openssl-expired.p12", ["-legacy"], PASS, cert="e.crt", key="e.key")
    c.add("openssl-expired.p12", "openssl", "pkcs12 -export -legacy, expired certificate", PASS, 2, 1, 1, e_cn, e_after, True, expired=True, gate="FAIL")

    # Encrypted keys, every encryption openssl offers that people meet.
    keys = [
        ("key-pkcs8-md5des.pem", "pkcs8 -topk8 -v1 PBE-MD5-DES", ["openssl", "pkcs8", "-topk8", "-v1", "PBE-MD5-DES", "-provider", "legacy", "-provider", "default"]),
        ("key-pkcs8-sha1-3des.pem", "pkcs8 -topk8 -v1 PBE-SHA1-3DES", ["openssl", "pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES"]),
        ("key-pkcs8-aes256.pem", "pkcs8 -topk8 -v2 aes256", ["openssl", "pkcs8", "-topk8", "-v2", "aes256"]),
        ("key-rsa-des.pem", "rsa -des (PKCS#1 DEK-Info DES-CBC)", ["openssl", "rsa", "-traditional", "-des", "-provider", "legacy", "-provider", "default"]),
        ("key-rsa-des3.pem", "rsa -des3 (PKCS#1 DEK-Info DES-EDE3-CBC)", ["openssl", "rsa", "-traditional", "-des3"]),
        ("key-rsa-aes256.pem", "rsa -aes256 (PKCS#1 DEK-Info AES-256-CBC)", ["openssl", "rsa", "-traditional", "-aes256"]),
    ]
    for file, format, args in keys:
        run(*args, "-in", c.work("a.key"), "-out", c.path(file), "-passout", f"pass:{PASS}")
        c.add(file, "openssl", format, PASS, 0, 1, 0, None, None, None, gate="OK")
    run("openssl", "ec", "-aes128", "-in", c.work("b.key"), "-out", c.path("key-ec-aes128.pem"), "-passout", f"pass:{PASS}")
    c.add("key-ec-aes128.pem", "openssl", "ec -aes128 (SEC1 DEK-Info AES-128-CBC)", PASS, 0, 1, 0, None, None, None)
    run("openssl", "pkcs8", "-topk8", "-v2", "aes256", "-outform", "DER", "-in", c.work("a.key"), "-out", c.work("aes.der"), "-passout", f"pass:{PASS}")
    # The same PBES2 key with its cipher OID (aes-256-cbc, 2.16.840.1.101.3.4.1.42) changed to
    # an arc no OpenSSL implements: "unsupported algorithm", never "wrong passphrase".
    with open(c.work("aes.der"), "rb") as handle:
        der = handle.read()
    aes256 = bytes.fromhex("60864801650304012a")
    if der.count(aes256) != 1:
        fail("the aes-256-cbc OID is not where expected in openssl's PKCS#8 output")
    c.write("key-unknown-cipher.p8.der", der.replace(aes256, bytes.fromhex("60864801650304017f")))
    c.add("key-unknown-cipher.p8.der", "openssl + OID edit", "pkcs8 -v2 aes256 with an unknown cipher OID", PASS, 0, 1, 0, None, None, None,
          unsupported="2.16.840.1.101.3.4.1.127")

    # The text variants users meet, of one combined PEM (certificate, key, chain).
    combined = pem_cert(a) + pem_key(a_key) + pem_cert(ca)
    def text_variant(file, format, data, **kw):
        c.write(file, data)
        c.add(file, "openssl/text", format, None, 2, 1, 1, kw.get("subject", a_cn), kw.get("after", a_after), True,
              expired=kw.get("expired", False), gate=kw.get("gate", "OK"), friendly_name=kw.get("friendly_name"))
    text_variant("combined-bom.pem", "combined PEM with a UTF-8 BOM", b"\xef\xbb\xbf" + combined)
    text_variant("combined-crlf.pem", "combined PEM with CRLF line ends", combined.replace(b"\n", b"\r\n"))
    text_variant("combined-bom-crlf.pem", "combined PEM with a BOM and CRLF", b"\xef\xbb\xbf" + combined.replace(b"\n", b"\r\n"))
    text_variant("combined-trailing-spaces.pem", "combined PEM with trailing spaces", combined.replace(b"\n", b"  \n"))
    text_variant("combined-no-final-newline.pem", "combined PEM without a final newline", combined.rstrip(b"\n"))
    def rewrap(pem, width):
        lines, body, result = pem.decode().split("\n"), "", []
        for line in lines:
            if line.startswith("-----BEGIN"):
                result.append(line); body = ""
            elif line.startswith("-----END"):
                result += [body[i:i + width] for i in range(0, len(body), width)] + [line]
            elif line:
                body += line
        return ("\n".join(result) + "\n").encode()
    text_variant("combined-76col.pem", "combined PEM with 76-column base64", rewrap(combined, 76))
    text = run("openssl", "x509", "-in", c.work("a.crt"), "-text")
    text_variant("combined-x509-text.pem", "x509 -text dump before the block", text + pem_key(a_key) + pem_cert(ca))
    run("openssl", "pkcs12", "-in", c.path("openssl-named.p12"), "-passin", f"pass:{PASS}", "-nodes", "-out", c.work("bag.pem"))
    with open(c.work("bag.pem"), "rb") as handle:
        text_variant("combined-bag-attributes.pem", "pkcs12 -nodes output (Bag Attributes headers)", handle.read(), friendly_name="Push A")
    # Item 1 of the issue: an expired certificate hidden behind a BOM must not pass the gate.
    text_variant("combined-bom-expired.pem", "combined PEM with a BOM, expired certificate",
                 b"\xef\xbb\xbf" + pem_cert(e) + pem_key(e_key) + pem_cert(ca), subject=e_cn, after=e_after, expired=True, gate="FAIL")
    # A CA:TRUE certificate with its own key, as a push identity: never passes.
    c.write("ca-with-key.pem", pem_cert(s) + pem_key(s_key))
    c.add("ca-with-key.pem", "cryptography", "self-signed CA:TRUE certificate with its key", None, 1, 1, 1,
          "Self-made CA posing as push", s.not_valid_after_utc, True, ca=True, gate="FAIL")
    c.write("renamed-push.pem", pem_cert(n) + pem_key(n_key) + pem_cert(ca))
    c.add("renamed-push.pem", "cryptography", "APNs extension under a non-standard common name", None, 2, 1, 1, n_cn, n.not_valid_after_utc, True)
    # A combined PEM whose key is encrypted: the certificate's facts need no passphrase.
    encrypted_key = a_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.BestAvailableEncryption(PASS.encode()))
    c.write("combined-encrypted-key.pem", pem_cert(a) + encrypted_key + pem_cert(ca))
    c.add("combined-encrypted-key.pem", "cryptography", "combined PEM, encrypted PKCS#8 key", PASS, 2, 1, 1, a_cn, a_after, True)
    # A .p8 holding only a public key can never sign a provider token.
    c.write("AuthKey_PUBONLY123.p8", b_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    c.add("AuthKey_PUBONLY123.p8", "cryptography", ".p8 with a public key only", None, 0, 0, 0, None, None, None, gate="FAIL")

    # Python cryptography's PKCS#12 serializer.
    def py_p12(file, format, passphrase, encryption, cert=a, key=a_key, subject=a_cn, after=a_after, friendly=b"Push A"):
        c.write(file, pkcs12.serialize_key_and_certificates(friendly, key, cert, [ca], encryption))
        c.add(file, "cryptography", format, passphrase, 2, 1, 1, subject, after, True, friendly_name=friendly.decode())
    py_p12("cryptography-aes.p12", "serialize_key_and_certificates, BestAvailableEncryption", PASS,
           serialization.BestAvailableEncryption(PASS.encode()))
    py_p12("cryptography-3des.p12", "PKCS12 encryption_builder 3DES + SHA-1 MAC (Keychain-like)", PASS,
           serialization.PrivateFormat.PKCS12.encryption_builder().kdf_rounds(2048)
           .key_cert_algorithm(pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC).hmac_hash(hashes.SHA1()).build(PASS.encode()))
    py_p12("cryptography-plain.p12", "serialize_key_and_certificates, NoEncryption", None, serialization.NoEncryption())
    py_p12("cryptography-ec.p12", "serialize_key_and_certificates, EC P-256 identity", PASS,
           serialization.BestAvailableEncryption(PASS.encode()), cert=b, key=b_key, subject=b_cn, after=b_after, friendly=b"Push B")

    # GnuTLS certtool --to-p12.
    for file, extra, format in [("certtool.p12", [], "certtool --to-p12 (default: AES-128 PBES2)"),
                                ("certtool-3des.p12", ["--pkcs-cipher", "3des-pkcs12"], "certtool --to-p12 --pkcs-cipher 3des-pkcs12")]:
        with open(c.work("a-chain.pem"), "wb") as handle:
            handle.write(pem_cert(a) + pem_cert(ca))
        run("certtool", "--to-p12", "--load-privkey", c.work("a.key"), "--load-certificate", c.work("a-chain.pem"),
            "--p12-name", "Push A", "--password", PASS, "--outder", "--outfile", c.path(file), *extra)
        c.add(file, "certtool", format, PASS, 2, 1, 1, a_cn, a_after, True, friendly_name="Push A")

    # NSS pk12util: import an identity into a fresh NSS database, export it again.
    nss = c.work("nssdb")
    os.makedirs(nss, exist_ok=True)
    run("certutil", "-N", "-d", f"sql:{nss}", "--empty-password")
    run("pk12util", "-i", c.path("openssl-named.p12"), "-d", f"sql:{nss}", "-W", PASS)
    run("certutil", "-M", "-d", f"sql:{nss}", "-n", "Corpus CA", "-t", "C,,")
    run("pk12util", "-o", c.path("pk12util.p12"), "-n", "Push A", "-d", f"sql:{nss}", "-W", PASS)
    c.add("pk12util.p12", "pk12util", "pk12util -o (NSS defaults)", PASS, 2, 1, 1, a_cn, a_after, True, friendly_name="Push A")
    run("pk12util", "-o", c.path("pk12util-legacy.p12"), "-n", "Push A", "-d", f"sql:{nss}", "-W", PASS,
        "-c", "PKCS #12 V2 PBE With SHA-1 And 3KEY Triple DES-CBC", "-C", "PKCS #12 V2 PBE With SHA-1 And 40 Bit RC2 CBC")
    c.add("pk12util-legacy.p12", "pk12util", "pk12util -o -c 3DES -C RC2-40", PASS, 2, 1, 1, a_cn, a_after, True, friendly_name="Push A")

    # keytool: PKCS12 keystores with one and with several key entries (one JVM per call, so
    # few calls: the two identities are merged with -importkeystore).
    export("ks-b-src.p12", ["-name", "Push B"], PASS, cert="b.crt", key="b.key")
    os.replace(c.path("ks-b-src.p12"), c.work("ks-b-src.p12"))
    shutil.copy(c.path("openssl-named.p12"), c.work("ks-a-src.p12"))
    run("keytool", "-importkeystore", "-srckeystore", c.work("ks-a-src.p12"), "-srcstoretype", "PKCS12", "-srcstorepass", PASS,
        "-destkeystore", c.path("keytool-one.p12"), "-deststoretype", "PKCS12", "-deststorepass", PASS, "-noprompt")
    # keytool lower-cases aliases, and the alias is the friendlyName it writes.
    c.add("keytool-one.p12", "keytool", "keytool -importkeystore, one key entry", PASS, 2, 1, 1, a_cn, a_after, True, friendly_name="push a")
    shutil.copy(c.path("keytool-one.p12"), c.path("keytool-two.p12"))
    run("keytool", "-importkeystore", "-srckeystore", c.work("ks-b-src.p12"), "-srcstoretype", "PKCS12", "-srcstorepass", PASS,
        "-destkeystore", c.path("keytool-two.p12"), "-deststoretype", "PKCS12", "-deststorepass", PASS, "-noprompt")
    # Chain certificates are stored once per entry, so the CA appears twice.
    c.add("keytool-two.p12", "keytool", "keytool PKCS12 keystore, two key entries", PASS, 4, 2, 2, a_cn, a_after, True, gate="WARN",
          friendly_name="push a")

    with open(c.path("manifest.json"), "w") as handle:
        json.dump({"passphrase": PASS, "files": c.entries}, handle, indent=1)
    shutil.rmtree(os.path.join(out, "work"))


if __name__ == "__main__":
    main()
