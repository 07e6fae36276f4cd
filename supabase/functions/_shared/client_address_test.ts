import { equal } from "node:assert/strict";
import { clientAddress } from "./client_address.ts";

const info = {
  remoteAddr: { transport: "tcp", hostname: "192.0.2.7", port: 5000 },
  completed: Promise.resolve(),
} as Deno.ServeHandlerInfo;
const forwarded = new Request("http://x/", {
  headers: {
    "x-forwarded-for": "203.0.113.9, 198.51.100.4",
    "cf-connecting-ip": "198.51.100.5",
  },
});

Deno.test("clientAddress() ignores forwarding headers unless a trusted proxy is configured", () => {
  equal(clientAddress(forwarded, info, false), "192.0.2.7");
});

Deno.test("clientAddress() takes the X-Forwarded-For hop the trusted proxy appended, not the caller's claim", () => {
  equal(clientAddress(forwarded, info, "x-forwarded-for"), "198.51.100.4");
});

Deno.test("clientAddress() takes the header the trusted proxy overwrites, whole", () => {
  equal(clientAddress(forwarded, info, "cf-connecting-ip"), "198.51.100.5");
});

Deno.test("clientAddress() falls back to the socket peer without the trusted header", () => {
  equal(clientAddress(new Request("http://x/"), info, "x-forwarded-for"), "192.0.2.7");
  equal(clientAddress(new Request("http://x/"), info, "cf-connecting-ip"), "192.0.2.7");
});
