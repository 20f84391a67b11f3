import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

/** PEM files made for a test: a CA, a server certificate it signed for 127.0.0.1, and a CA that signed nothing. */
export interface TestCertificates {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** Another CA: a client that trusts only it must refuse the server. */
  otherCaFile: string;
}

/** Makes the certificates with `openssl` in `dir` (valid for a day, RSA 2048). */
export function makeTestCertificates(dir: string): TestCertificates {
  const file = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => void execFileSync("openssl", args, { stdio: "ignore" });
  const selfSignedCa = (name: string, commonName: string): void =>
    openssl(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      `/CN=${commonName}`,
      "-keyout",
      file(`${name}.key`),
      "-out",
      file(`${name}.crt`),
    );
  selfSignedCa("ca", "tabwire test CA");
  selfSignedCa("other-ca", "tabwire other CA");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", file("server.key"), "-out", file("server.csr"));
  writeFileSync(file("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  openssl(
    "x509",
    "-req",
    "-days",
    "1",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.crt"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-extfile",
    file("server.ext"),
    "-out",
    file("server.crt"),
  );
  return { caFile: file("ca.crt"), certFile: file("server.crt"), keyFile: file("server.key"), otherCaFile: file("other-ca.crt") };
}
