#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Runs clients nobody on this project wrote against a running `apnskit mock serve` and checks
that each request in a table is answered as Apple answers it (status and reason) and that the
client itself reports that answer. Nine independent clients:
- PyPI aioapns 4.0 (token and certificate auth, the way it connects to Apple: to
  api.development.push.apple.com, verifying that name);
- PyPI httpx 0.28 over HTTP/2 with tokens signed by PyJWT;
- Debian curl --http2;
- Debian nghttp -v (nghttp2's client), which prints every frame: no frame may follow an
  answer's END_STREAM on a stream whose request had ended (RFC 9113 §5.1, §8.1);
- Python h2 4.4 driven by hand over ssl (a strict HTTP/2 state machine: a frame on a closed
  stream is an error to it), reading a 413 answer to a complete 5,121-byte request;
- async-http-client 1.37 (Swift; APNSwift's transport), the AHCConformance test executable,
  sending APNSwift-style tokens (iat as a string of digits, kid in the claims) on every push type;
- PyPI kalyke-apns 1.5.0 (MIT; httpx2; signs iat as a string of digits);
- PyPI apns2-up 0.9.0 (MIT; PyAPNs2's maintained fork, on hyper-up's HTTP/2; fractional iat);
- PyPI mopyapns 0.8.0 (MIT; a PyAPNs2 fork on httpx; fractional iat). It installs a module
  named `apns2` as apns2-up does, so scripts/setup.sh puts it in its own folder
  (/opt/apnskit-conformance/mopyapns) and it is imported from there under its own name.
Patches, in this script only: the PyAPNs2 forks and kalyke-apns connect to Apple's host names on
port 443 and trust the system's CAs; their host, port and TLS trust are pointed at the mock
(class attributes, and the credentials' private SSL context). Nothing of what they send is changed.

The mock shares no validation code with these clients, so an agreement here is evidence that
the mock behaves like Apple rather than like our own sender (apns-protocol.md §1, §8).

Usage: mock_conformance.py WORKDIR PORT CHANNELS_PORT [RECORD]
RECORD, the mock's --record file, lets the suite check the marks the mock put on the unusual
tokens it served. AHC_CONFORMANCE names the built AHCConformance executable.
WORKDIR holds mockca/ (the mock CA), AuthKey_ABC123DEFG.p8 (team TEAM123456, registered),
apns.pem (development certificate + key for com.example.app) and production.pem (a production
certificate + key). Only 127.0.0.1 is contacted. Prints one line per case; exit 0 when every
case matched, 1 when one did not, 2 when a client is missing (run scripts/setup.sh).
"""

import asyncio
import importlib
import json
import logging
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import time

MOPYAPNS_DIR = "/opt/apnskit-conformance/mopyapns"


def import_isolated(folder, name):
    """Imports package `name` from `folder` without letting it shadow (or be shadowed by) a
    package of the same name installed elsewhere: mopyapns and apns2-up both call theirs
    `apns2`. The loaded modules keep working after they leave sys.modules."""
    if not os.path.isdir(os.path.join(folder, name)):
        raise ImportError(name=f"mopyapns (in {folder})")
    mine = lambda key: key == name or key.startswith(name + ".")
    saved = {k: v for k, v in sys.modules.items() if mine(k)}
    for key in saved:
        del sys.modules[key]
    sys.path.insert(0, folder)
    try:
        package = importlib.import_module(name)
        for sub in ("client", "credentials", "payload", "errors"):
            importlib.import_module(f"{name}.{sub}")
        return package
    finally:
        sys.path.remove(folder)
        for key in [k for k in sys.modules if mine(k)]:
            del sys.modules[key]
        sys.modules.update(saved)


try:
    import aioapns
    import aioapns.connection
    import h2.config
    import h2.connection
    import h2.events
    import httpx
    import jwt
    import kalyke
    import kalyke.clients.apns
    import apns2.client as apns2_up_client
    import apns2.credentials as apns2_up_credentials
    import apns2.payload as apns2_up_payload
    from cryptography.hazmat.primitives.asymmetric import ec
    mopyapns = import_isolated(MOPYAPNS_DIR, "apns2")
except ImportError as missing:
    print(f"conformance: {missing.name} is not installed; run scripts/setup.sh (it pip-installs the clients).")
    sys.exit(2)

logging.getLogger("aioapns").setLevel(logging.CRITICAL)  # it logs every non-200; the table says it instead
WORKDIR, PORT, CHANNELS_PORT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
RECORD = sys.argv[4] if len(sys.argv) > 4 else None
CA = os.path.join(WORKDIR, "mockca", "ca-bundle.pem")
KEY_ID, TEAM_ID, TOPIC = "ABC123DEFG", "TEAM123456", "com.example.app"
DEVICE = "ab" * 32
KEY = open(os.path.join(WORKDIR, f"AuthKey_{KEY_ID}.p8")).read()
failures = []


def check(client, case, got_status, got_reason, want_status, want_reason):
    """got_status None: the client reports only the reason (the PyAPNs2 forks), so only that
    is compared, and the line shows '-' for the status."""
    ok = (got_status is None or got_status == want_status) and got_reason == want_reason
    print(f"{'ok  ' if ok else 'FAIL'} {client:10} {case:44} {got_status if got_status is not None else '-'} {got_reason or '-'}"
          + ("" if ok else f" (expected {want_status} {want_reason or '-'})"))
    if not ok:
        failures.append(f"{client}: {case}")


def apnswift_token(issued_at=None):
    """The token APNSwift 5.0-6.4 made: iat a JSON string of digits, kid in the claims too,
    and PyJWT's typ header besides alg and kid."""
    iat = str(int(issued_at if issued_at is not None else time.time()))
    return jwt.encode({"iss": TEAM_ID, "iat": iat, "kid": KEY_ID}, KEY, algorithm="ES256", headers={"kid": KEY_ID})


# One request per push type, with its topic and a payload of its kind (apns-protocol.md §1).
EVERY_PUSH_TYPE = [
    ("alert", TOPIC, {"aps": {"alert": "conformance"}}),
    ("background", TOPIC, {"aps": {"content-available": 1}}),
    ("location", TOPIC + ".location-query", {"aps": {}}),
    ("voip", TOPIC + ".voip", {"call": "conformance"}),
    ("complication", TOPIC + ".complication", {"aps": {"content-available": 1}}),
    ("fileprovider", TOPIC + ".pushkit.fileprovider", {"container-identifier": "NSFileProviderRootContainerItemIdentifier"}),
    ("mdm", TOPIC, {"mdm": "00000000-0000-0000-0000-000000000000"}),
    ("liveactivity", TOPIC + ".push-type.liveactivity",
     {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"score": 1}}}),
    ("pushtotalk", TOPIC + ".voip-ptt", {"aps": {}}),
    ("widgets", TOPIC + ".push-type.widgets", {"aps": {"content-changed": True}}),
]


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


# nghttp -------------------------------------------------------------------------------------

def nghttp_run(case, headers, payload, status, reason):
    """nghttp -v against the mock: the answer's status and reason, and every frame it printed
    for its stream after the answer's END_STREAM."""
    with tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False) as body:
        body.write(payload)
    try:
        command = ["nghttp", "-v", "--no-dep", "-d", body.name]
        for name, value in headers.items():
            command += ["-H", f"{name}: {value}"]
        command.append(f"https://127.0.0.1:{PORT}/3/device/{DEVICE}")
        run = subprocess.run(command, capture_output=True, text=True, timeout=30)
    finally:
        os.unlink(body.name)
    lines = run.stdout.splitlines()
    got_status = next((int(m.group(1)) for l in lines if (m := re.search(r"recv \(stream_id=\d+\) :status: (\d+)", l))), None)
    # The answer's END_STREAM: a HEADERS or DATA frame received with flags 0x01 set.
    ended = next((i for i, l in enumerate(lines) if re.search(r"recv (HEADERS|DATA) frame <.*flags=0x0[15]", l)), None)
    after = [l.strip() for l in lines[ended + 1:] if re.search(r"recv \w+ frame <.*stream_id=[1-9]", l)] if ended is not None else ["no END_STREAM seen"]
    got_reason = None
    match = re.search(r'\{"reason":"(\w+)"', run.stdout)
    if match:
        got_reason = match.group(1)
    check("nghttp", case, got_status, got_reason, status, reason)
    if after:
        check("nghttp", case + ": frames after END_STREAM", ", ".join(after), None, "none", None)


def nghttp_cases():
    token = {"authorization": "bearer " + provider_token()}
    voip = dict(token, **{"apns-topic": TOPIC + ".voip", "apns-push-type": "voip"})
    alert = dict(token, **{"apns-topic": TOPIC, "apns-push-type": "alert"})
    # 5,121 bytes: one over the VoIP limit, sent complete in one DATA frame with END_STREAM.
    big = json.dumps({"call": "x" * (5121 - len('{"call": ""}'))}).encode()
    assert len(big) == 5121
    nghttp_run("5,121-byte VoIP payload (413, nothing after)", voip, big, 413, "PayloadTooLarge")
    nghttp_run("4,097-byte alert payload (413)", alert, json.dumps({"aps": {"alert": "x" * (4097 - 22)}}).encode(), 413, "PayloadTooLarge")
    nghttp_run("valid (token)", alert, b'{"aps":{"alert":"conformance"}}', 200, None)
    nghttp_run("bad priority on a 5,000-byte body (400)", dict(voip, **{"apns-priority": "3"}), json.dumps({"call": "x" * 4980}).encode(),
               400, "BadPriority")
    nghttp_run("no JWT on a 5,000-byte body (403)", {"apns-topic": TOPIC + ".voip", "apns-push-type": "voip"},
               json.dumps({"call": "x" * 4980}).encode(), 403, "MissingProviderToken")
    nghttp_run("APNSwift-style JWT (iat a string)", {"authorization": "bearer " + apnswift_token(), "apns-topic": TOPIC},
               b'{"aps":{"alert":"conformance"}}', 200, None)


# Python h2 ----------------------------------------------------------------------------------

def h2_exchange(headers, body):
    """One request over a fresh TLS connection with h2's strict state machine; the answer's
    status and reason, and every event for the stream after its END_STREAM, up to the ack of a
    PING sent once the answer ended (so whatever the mock sent after the answer has arrived)."""
    context = ssl.create_default_context(cafile=CA)
    context.set_alpn_protocols(["h2"])
    with socket.create_connection(("127.0.0.1", PORT), timeout=10) as raw, context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
        connection.initiate_connection()
        tls.sendall(connection.data_to_send())
        stream = connection.get_next_available_stream_id()
        connection.send_headers(stream, [(":method", "POST"), (":scheme", "https"), (":authority", f"127.0.0.1:{PORT}"),
                                         (":path", f"/3/device/{DEVICE}")] + list(headers.items()))
        # Flow control: the mock opens a window far larger than 5 KB; send in frames h2 allows.
        offset = 0
        while offset < len(body):
            size = min(len(body) - offset, connection.local_flow_control_window(stream), connection.max_outbound_frame_size)
            connection.send_data(stream, body[offset:offset + size], end_stream=offset + size == len(body))
            offset += size
        tls.sendall(connection.data_to_send())
        status, data, ended, after, acked = None, b"", False, [], False
        while not acked:
            chunk = tls.recv(65536)
            if not chunk:
                after.append("connection closed")
                break
            for event in connection.receive_data(chunk):
                if ended and getattr(event, "stream_id", None) == stream:
                    after.append(type(event).__name__)
                if isinstance(event, h2.events.ResponseReceived):
                    status = int(dict(event.headers)[b":status"])
                elif isinstance(event, h2.events.DataReceived):
                    data += event.data
                    connection.acknowledge_received_data(event.flow_controlled_length, stream)
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    ended = True
                    connection.ping(b"12345678")
                elif isinstance(event, h2.events.StreamReset):
                    after.append(f"RST_STREAM {event.error_code!r}")
                elif isinstance(event, h2.events.PingAckReceived):
                    acked = True
            tls.sendall(connection.data_to_send())
        reason = json.loads(data).get("reason") if data else None
        return status, reason, after


def h2_cases():
    voip = {"authorization": "bearer " + provider_token(), "apns-topic": TOPIC + ".voip", "apns-push-type": "voip"}
    big = json.dumps({"call": "x" * (5121 - len('{"call": ""}'))}).encode()
    for case, headers, body, status, reason in [
        ("5,121-byte VoIP payload (413)", voip, big, 413, "PayloadTooLarge"),
        ("valid VoIP (token)", voip, b'{"call":"conformance"}', 200, None),
        ("APNSwift-style JWT (iat a string)", dict(voip, authorization="bearer " + apnswift_token()), b'{"call":"x"}', 200, None),
    ]:
        got_status, got_reason, after = h2_exchange(headers, body)
        check("h2", case, got_status, got_reason, status, reason)
        if after:
            check("h2", case + ": events after END_STREAM", ", ".join(after), None, "none", None)


# async-http-client --------------------------------------------------------------------------

def ahc_cases():
    """async-http-client with APNSwift's token on every push type, and the usual refusals.
    Returns the apns-ids of the requests served with an APNSwift-style token."""
    binary = os.environ.get("AHC_CONFORMANCE")
    if not binary or not os.access(binary, os.X_OK):
        check("ahc", "AHCConformance built (AHC_CONFORMANCE)", "missing", None, "present", None)
        return []
    token = "bearer " + apnswift_token()
    table = []
    for push_type, topic, payload in EVERY_PUSH_TYPE:
        priority = "5" if push_type in ("background", "complication", "fileprovider", "liveactivity", "widgets") else "10"
        table.append((f"APNSwift-style JWT, {push_type}", {"authorization": token, "apns-topic": topic, "apns-push-type": push_type,
                                                        "apns-priority": priority}, payload, 200, None))
    table += [
        ("bad topic for voip push type", {"authorization": token, "apns-topic": TOPIC, "apns-push-type": "voip"},
         {"call": "x"}, 400, "BadTopic"),
        ("oversize VoIP payload (5,121 bytes)", {"authorization": token, "apns-topic": TOPIC + ".voip", "apns-push-type": "voip"},
         {"call": "x" * (5121 - len('{"call": ""}'))}, 413, "PayloadTooLarge"),
        ("bad priority", {"authorization": token, "apns-topic": TOPIC, "apns-priority": "3"}, {"aps": {"alert": "x"}}, 400, "BadPriority"),
    ]
    # json.dumps' default separators: the oversize body is exactly 5,121 bytes.
    requests = [{"case": case, "path": f"/3/device/{DEVICE}", "headers": headers, "body": json.dumps(payload)}
                for case, headers, payload, _, _ in table]
    run = subprocess.run([binary, "cases", str(PORT), CA], input=json.dumps(requests), capture_output=True, text=True, timeout=120)
    answers = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    if len(answers) != len(table):
        check("ahc", "every request answered", f"{len(answers)} of {len(table)}", run.stderr.strip()[-300:], len(table), None)
    served = []
    for answer, (case, _, _, status, reason) in zip(answers, table):
        check("ahc", case, answer["status"], answer["reason"], status, reason)
        if status == 200 and answer.get("apns_id"):
            served.append((case, answer["apns_id"]))
    return served


# kalyke-apns --------------------------------------------------------------------------------

async def kalyke_cases():
    """kalyke-apns signs iat as a JSON string of digits (kalyke/clients/apns.py). Patched here:
    its base URL (Apple's host on 443) and its httpx2 client's trust (the system's CAs)."""
    from kalyke import ApnsConfig, ApnsPushType
    from kalyke.exceptions import ApnsProviderException

    class LocalClient(kalyke.ApnsClient):
        @property
        def _base_url(self):
            return f"https://127.0.0.1:{PORT}"

    original = kalyke.clients.apns.AsyncClient
    kalyke.clients.apns.AsyncClient = lambda **kwargs: original(verify=trusting_mock(), **kwargs)
    key_file = os.path.join(WORKDIR, f"AuthKey_{KEY_ID}.p8")
    client = LocalClient(use_sandbox=True, team_id=TEAM_ID, auth_key_id=KEY_ID, auth_key_filepath=key_file)
    served = []
    table = [
        ("valid (iat a string)", client, DEVICE, {"aps": {"alert": "conformance"}}, ApnsConfig(topic=TOPIC), 200, None),
        ("background", client, DEVICE, {"aps": {"content-available": 1}},
         ApnsConfig(topic=TOPIC, push_type=ApnsPushType.BACKGROUND, priority=kalyke.ApnsPriority.BASED_ON_POWER), 200, None),
        ("bad topic for voip push type", client, DEVICE, {"call": "x"}, ApnsConfig(topic=TOPIC, push_type=ApnsPushType.VOIP), 400, "BadTopic"),
        ("malformed device token", client, "xyz", {"aps": {"alert": "x"}}, ApnsConfig(topic=TOPIC), 400, "BadDeviceToken"),
        ("oversize payload", client, DEVICE, {"aps": {"alert": "x" * 4100}}, ApnsConfig(topic=TOPIC), 413, "PayloadTooLarge"),
    ]
    try:
        for case, sender, device, payload, config, status, reason in table:
            try:
                apns_id = await sender.send_message(device_token=device, payload=payload, apns_config=config)
                check("kalyke", case, 200, None, status, reason)
                served.append((f"kalyke {case}", apns_id))
            except ApnsProviderException as error:
                # kalyke raises the exception class named after Apple's reason (no status).
                check("kalyke", case, None, type(error).__name__, status, reason)
    finally:
        kalyke.clients.apns.AsyncClient = original
    return served


# PyAPNs2 forks: apns2-up (hyper-up) and mopyapns (httpx) -------------------------------------

def apns2_cases(name, client_module, credentials_module, payload_module):
    """The PyAPNs2 API: send_notification_async then get_notification_result, which gives
    'Success' or Apple's reason (no status). Patched here: server, port and the token
    credentials' TLS context (they trust the system's CAs and connect to Apple's host)."""
    class LocalClient(client_module.APNsClient):
        SANDBOX_SERVER = "127.0.0.1"
        DEFAULT_PORT = PORT

    credentials = credentials_module.TokenCredentials(auth_key_path=os.path.join(WORKDIR, f"AuthKey_{KEY_ID}.p8"),
                                                      auth_key_id=KEY_ID, team_id=TEAM_ID)
    credentials._Credentials__ssl_context = trusting_mock()
    if name == "apns2-up":
        credentials._Credentials__ssl_context.set_alpn_protocols(["h2"])
    client = LocalClient(credentials=credentials, use_sandbox=True)
    P = payload_module.Payload
    table = [
        ("valid (fractional iat)", DEVICE, P(alert="conformance"), TOPIC, 200, None),
        ("bad topic for voip push type", DEVICE, P(alert="x"), TOPIC, 400, "BadTopic"),
        ("malformed device token", "xyz", P(alert="x"), TOPIC, 400, "BadDeviceToken"),
        ("oversize payload", DEVICE, P(alert="x" * 4100), TOPIC, 413, "PayloadTooLarge"),
    ]
    for case, device, payload, topic, status, reason in table:
        push_type = client_module.NotificationType.VoIP if case.startswith("bad topic") else None
        try:
            stream = client.send_notification_async(device, payload, topic, push_type=push_type)
            result = client.get_notification_result(stream)
        except Exception as error:  # a client failure is a failed case, with its words
            check(name, case, f"error {type(error).__name__}", str(error)[:80], status, reason)
            continue
        check(name, case, None, None if result == "Success" else result, status, reason)


# the mock's marks on what it served ----------------------------------------------------------

def check_marks(served):
    """With the record: every request served with an unusual token carries its marks."""
    if not RECORD:
        return
    for _ in range(50):  # the record line is written before the answer; read until all are there
        lines = [json.loads(l) for l in open(RECORD) if l.strip()]
        by_id = {line.get("apns_id"): line for line in lines}
        if all(apns_id in by_id for _, apns_id in served):
            break
        time.sleep(0.1)
    for case, apns_id in served:
        marks = [m["mark"] for m in by_id.get(apns_id, {}).get("token_marks", [])]
        want = ["jwt-iat-string", "jwt-extra-claims", "jwt-extra-header"] if not case.startswith("kalyke") else ["jwt-iat-string", "jwt-extra-header"]
        check("record", f"marks: {case}", ",".join(marks) or "none", None, ",".join(want), None)


async def main():
    await aioapns_cases()
    httpx_cases()
    curl_cases()
    nghttp_cases()
    h2_cases()
    served = ahc_cases()
    served += await kalyke_cases()
    apns2_cases("apns2-up", apns2_up_client, apns2_up_credentials, apns2_up_payload)
    apns2_cases("mopyapns", mopyapns.client, mopyapns.credentials, mopyapns.payload)
    check_marks(served)
    if failures:
        print(f"conformance: {len(failures)} case(s) differ from Apple's answers: {', '.join(failures)}")
        sys.exit(1)
    print("conformance: all cases answered as Apple does")


asyncio.run(main())
