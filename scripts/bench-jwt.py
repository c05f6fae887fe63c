"""An ES256 provider token (JWT) for h2load, signed with the openssl CLI: what `apnskit push`
sends as `authorization: bearer ...`, so the benchmarks' reference requests carry the same
header set. Usage: python3 scripts/bench-jwt.py AUTHKEY.p8 KEY-ID TEAM-ID"""
import base64, json, subprocess, sys, time

key, key_id, team_id = sys.argv[1:4]
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
head = b64(json.dumps({"alg": "ES256", "kid": key_id}, separators=(",", ":")).encode())
claims = b64(json.dumps({"iss": team_id, "iat": int(time.time())}, separators=(",", ":")).encode())
der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=f"{head}.{claims}".encode(),
                     capture_output=True, check=True).stdout
# The DER ECDSA signature (SEQUENCE of two INTEGERs) as JOSE wants it: r and s, 32 bytes each.
i = 2 + (der[1] & 0x7F if der[1] & 0x80 else 0)
r = der[i + 2:i + 2 + der[i + 1]]; i += 2 + der[i + 1]
s = der[i + 2:i + 2 + der[i + 1]]
zero = bytes(1)
print(head + "." + claims + "." + b64(r[-32:].rjust(32, zero) + s[-32:].rjust(32, zero)))
