#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Runs clients nobody on this project wrote against a running `apnskit mock serve` and checks
that each request in a table is answered as Apple answers it (status and reason) and that the
client itself reports that answer: PyPI aioapns (token and certificate auth, the way it
connects to Apple: to api.development.push.apple.com, verifying that name), PyPI httpx over
HTTP/2 with tokens signed by PyJWT, and Debian curl --http2.

The mock shares no validation code with these clients, so an agreement here is evidence that
the mock behaves like Apple rather than like our own sender (apns-protocol.md §1, §8).

Usage: mock_conformance.py WORKDIR PORT CHANNELS_PORT
WORKDIR holds mockca/ (the mock CA), AuthKey_ABC123DEFG.p8 (team TEAM123456, registered),
apns.pem (development certificate + key for com.example.app) and production.pem (a production
certificate + key). Only 127.0.0.1 is contacted. Prints one line per case; exit 0 when every
case matched, 1 when one did not, 2 when a client is missing (run scripts/setup.sh).
"""

import asyncio
import json
import logging
import os
import ssl
import subprocess
import sys
import time

try:
    import aioapns
    import aioapns.connection
    import httpx
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec
except ImportError as missing:
    print(f"conformance: {missing.name} is not installed; run scripts/setup.sh (it pip-installs aioapns and httpx[http2]).")
    sys.exit(2)

logging.getLogger("aioapns").setLevel(logging.CRITICAL)  # it logs every non-200; the table says it instead
WORKDIR, PORT, CHANNELS_PORT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
CA = os.path.join(WORKDIR, "mockca", "ca-bundle.pem")
KEY_ID, TEAM_ID, TOPIC = "ABC123DEFG", "TEAM123456", "com.example.app"
DEVICE = "ab" * 32
KEY = open(os.path.join(WORKDIR, f"AuthKey_{KEY_ID}.p8")).read()
failures = []


def check(client, case, got_status, got_reason, want_status, want_reason):
    ok = got_status == want_status and got_reason == want_reason
    print(f"{'ok  ' if ok else 'FAIL'} {client:8} {case:34} {got_status} {got_reason or '-'}"
          + ("" if ok else f" (expected {want_status} {want_reason or '-'})"))
    if not ok:
        failures.append(f"{client}: {case}")


def provider_token(key=KEY, key_id=KEY_ID, team_id=TEAM_ID, issued_at=None):
    return jwt.encode({"iss": team_id, "iat": int(issued_at if issued_at is not None else time.time())},
                      key, algorithm="ES256", headers={"kid": key_id})


# aioapns ----------------------------------------------------------------------------------

def point_aioapns_at_mock():
    """aioapns connects to Apple's host names on port 443; keep the name (SNI and certificate
    check against it) but open the TCP connection to the mock on 127.0.0.1:PORT."""
    aioapns.connection.APNsTLSClientProtocol.APNS_PORT = PORT
    loop = asyncio.get_running_loop()
    original = loop.create_connection

    async def create_connection(protocol_factory, host=None, port=None, **kwargs):
        if kwargs.get("ssl") is not None:
            kwargs.setdefault("server_hostname", host)
        return await original(protocol_factory, "127.0.0.1", port, **kwargs)

    loop.create_connection = create_connection


def trusting_mock():
    return ssl.create_default_context(cafile=CA)


async def aioapns_cases():
    point_aioapns_at_mock()
    token_client = aioapns.APNs(key=KEY, key_id=KEY_ID, team_id=TEAM_ID, topic=TOPIC, use_sandbox=True,
                                ssl_context=trusting_mock(), max_connection_attempts=1)
    N = aioapns.NotificationRequest
    alert = {"aps": {"alert": "conformance"}}
    table = [
        ("valid (token)", N(device_token=DEVICE, message=alert), "200", None),
        ("bad topic for voip push type", N(device_token=DEVICE, message=alert, push_type=aioapns.PushType.VOIP), "400", "BadTopic"),
        ("malformed device token", N(device_token="xyz", message=alert), "400", "BadDeviceToken"),
        ("all-zero device token", N(device_token="00" * 32, message=alert), "400", "BadDeviceToken"),
        ("oversize payload", N(device_token=DEVICE, message={"aps": {"alert": "x" * 4100}}), "413", "PayloadTooLarge"),
        ("bad priority", N(device_token=DEVICE, message=alert, priority=3), "400", "BadPriority"),
    ]
    for case, request, status, reason in table:
        result = await token_client.send_notification(request)
        check("aioapns", case, result.status, result.description, status, reason)
    # Concurrent sends on one token connection: it starts with 1 stream (Apple's rule).
    many = await asyncio.gather(*[token_client.send_notification(N(device_token=DEVICE, message=alert)) for _ in range(20)])
    check("aioapns", "20 concurrent on a token connection", sorted({r.status for r in many})[0], None, "200", None)

    cert_client = aioapns.APNs(client_cert=os.path.join(WORKDIR, "apns.pem"), topic=TOPIC, use_sandbox=True,
                               ssl_context=trusting_mock(), max_connection_attempts=1)
    result = await cert_client.send_notification(N(device_token=DEVICE, message=alert))
    check("aioapns", "valid (certificate)", result.status, result.description, "200", None)
    wrong = aioapns.APNs(client_cert=os.path.join(WORKDIR, "production.pem"), topic=TOPIC, use_sandbox=True,
                         ssl_context=trusting_mock(), max_connection_attempts=1)
    result = await wrong.send_notification(N(device_token=DEVICE, message=alert))
    check("aioapns", "wrong environment (certificate)", result.status, result.description, "403", "BadCertificateEnvironment")


# httpx ------------------------------------------------------------------------------------

def httpx_cases():
    url = f"https://127.0.0.1:{PORT}/3/device/{DEVICE}"
    foreign_key = ec.generate_private_key(ec.SECP256R1())
    body = json.dumps({"aps": {"alert": "conformance"}})
    table = [
        ("valid", {}, body, 200, None),
        ("expired JWT", {"authorization": "bearer " + provider_token(issued_at=time.time() - 7200)}, body, 403, "ExpiredProviderToken"),
        ("JWT signed by a foreign key", {"authorization": "bearer " + provider_token(key=foreign_key)}, body, 403, "InvalidProviderToken"),
        ("JWT of another team", {"authorization": "bearer " + provider_token(team_id="OTHER12345")}, body, 403, "InvalidProviderToken"),
        ("no JWT", {"authorization": None}, body, 403, "MissingProviderToken"),
        ("bad priority", {"apns-priority": "3"}, body, 400, "BadPriority"),
        ("missing topic", {"apns-topic": None}, body, 400, "MissingTopic"),
        ("oversize payload", {}, json.dumps({"aps": {"alert": "x" * 4100}}), 413, "PayloadTooLarge"),
    ]
    for case, changes, payload, status, reason in table:
        # One connection per case: a connection keeps the first token it was given (§1).
        with httpx.Client(http2=True, verify=trusting_mock()) as client:
            headers = {"authorization": "bearer " + provider_token(), "apns-topic": TOPIC, "apns-push-type": "alert"}
            headers.update(changes)
            headers = {k: v for k, v in headers.items() if v is not None}
            response = client.post(url, headers=headers, content=payload)
            if response.http_version != "HTTP/2":
                check("httpx", case + " (protocol)", response.http_version, None, "HTTP/2", None)
            got = response.json().get("reason") if response.content else None
            check("httpx", case, response.status_code, got, status, reason)
            if status == 200 and not response.headers.get("apns-id"):
                check("httpx", case + " (apns-id header)", "absent", None, "present", None)


# curl -------------------------------------------------------------------------------------

def curl(case, arguments, status, reason):
    """Runs curl; returns the apns-channel-id answer header (or None)."""
    # --resolve: Apple's host names, connected on 127.0.0.1, verified against the mock CA.
    command = ["curl", "--silent", "--show-error", "--http2", "--cacert", CA,
               "--resolve", f"api.sandbox.push.apple.com:{PORT}:127.0.0.1",
               "--resolve", f"api-manage-broadcast.sandbox.push.apple.com:{CHANNELS_PORT}:127.0.0.1",
               "--write-out", "\n%{http_code} %{http_version} %header{apns-channel-id}"] + arguments
    run = subprocess.run(command, capture_output=True, text=True, timeout=30)
    if run.returncode != 0:
        check("curl", case, f"exit {run.returncode}", run.stderr.strip(), status, reason)
        return None
    body, _, tail = run.stdout.rpartition("\n")
    code, version, *channel = tail.split()
    if version != "2":
        check("curl", case + " (protocol)", version, None, "2", None)
    got = json.loads(body).get("reason") if body.strip() else None
    check("curl", case, int(code), got, status, reason)
    return channel[0] if channel else None


def curl_cases():
    base = f"https://api.sandbox.push.apple.com:{PORT}"
    device = f"{base}/3/device/{DEVICE}"
    data = ["--data", '{"aps":{"alert":"conformance"}}']
    cert = ["--cert", os.path.join(WORKDIR, "apns.pem")]
    bearer = ["--header", "authorization: bearer " + provider_token()]
    topic = ["--header", f"apns-topic: {TOPIC}"]
    curl("valid (certificate)", cert + topic + data + [device], 200, None)
    curl("valid (token)", bearer + topic + data + [device], 200, None)
    curl("wrong environment (certificate)", ["--cert", os.path.join(WORKDIR, "production.pem")] + topic + data + [device],
         403, "BadCertificateEnvironment")
    curl("bad path", cert + topic + data + [f"{base}/3/devices/{DEVICE}"], 404, "BadPath")
    curl("GET", cert + topic + ["--request", "GET", device], 405, "MethodNotAllowed")
    curl("bad expiration", cert + topic + ["--header", "apns-expiration: tomorrow"] + data + [device], 400, "BadExpirationDate")
    curl("topic the certificate lacks", cert + ["--header", "apns-topic: com.other.app"] + data + [device], 400, "TopicDisallowed")

    # Broadcast channels (§8): management on its own host and port, broadcasts on the provider's.
    manage = f"https://api-manage-broadcast.sandbox.push.apple.com:{CHANNELS_PORT}/1/apps/{TOPIC}"
    policy = ["--data", '{"message-storage-policy": 1, "push-type": "LiveActivity"}']
    channel = curl("create channel", cert + policy + [f"{manage}/channels"], 201, None)
    curl("create channel, policy 5", bearer + ["--data", '{"message-storage-policy": 5, "push-type": "LiveActivity"}', f"{manage}/channels"],
         400, "InvalidPolicy")
    if channel is None:
        check("curl", "apns-channel-id header on create", "absent", None, "present", None)
        return
    with_channel = ["--header", f"apns-channel-id: {channel}"]
    curl("read channel", cert + with_channel + [f"{manage}/channels"], 200, None)
    broadcast = f"{base}/4/broadcasts/apps/{TOPIC}"
    update = ["--data", '{"aps":{"timestamp":1,"event":"update","content-state":{"score":1}}}']
    curl("broadcast", bearer + with_channel + ["--header", "apns-push-type: liveactivity"] + update + [broadcast], 200, None)
    curl("broadcast, alert push type", bearer + with_channel + ["--header", "apns-push-type: alert"] + update + [broadcast], 400, "InvalidPushType")
    curl("broadcast, unknown channel", bearer + ["--header", "apns-channel-id: bm9uZQ==", "--header", "apns-push-type: liveactivity"] + update
         + [broadcast], 400, "ChannelNotRegistered")
    curl("delete channel", cert + with_channel + ["--request", "DELETE", f"{manage}/channels"], 204, None)
    curl("read deleted channel", cert + with_channel + [f"{manage}/channels"], 400, "ChannelNotRegistered")


async def main():
    await aioapns_cases()
    httpx_cases()
    curl_cases()
    if failures:
        print(f"conformance: {len(failures)} case(s) differ from Apple's answers: {', '.join(failures)}")
        sys.exit(1)
    print("conformance: all cases answered as Apple does")


asyncio.run(main())
