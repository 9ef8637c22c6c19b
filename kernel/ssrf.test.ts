import { describe, expect, it } from "vitest";
import { embeddedIPv4, isNonPublicAddress } from "./ssrf.js";

describe("isNonPublicAddress", () => {
  it.each([
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.251",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "64:ff9b::10.0.0.1",
    // The same forms as the URL parser writes them, in hex: NAT64, IPv4-compatible, 6to4.
    "64:ff9b::a9fe:a9fe",
    "64:ff9b:0:0:0:0:7f00:1",
    "::7f00:1",
    "::127.0.0.1",
    "::a00:1",
    "2002:a9fe:a9fe::1",
    "2002:7f00:1::",
    "[::1]",
    "not-an-address",
  ])("refuses %s", (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "172.32.0.1",
    "192.169.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::8.8.8.8",
    "64:ff9b::808:808",
    "::808:808",
    "2002:808:808::1",
  ])("allows the public address %s", (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });
});

describe("embeddedIPv4", () => {
  it.each([
    ["64:ff9b::a9fe:a9fe", "169.254.169.254"],
    ["64:ff9b::169.254.169.254", "169.254.169.254"],
    ["::7f00:1", "127.0.0.1"],
    ["0:0:0:0:0:0:c0a8:101", "192.168.1.1"],
    ["2002:c0a8:101:1::5", "192.168.1.1"],
  ])("reads %s as %s", (address, v4) => {
    expect(embeddedIPv4(address)).toBe(v4);
  });

  it.each(["2606:4700::1111", "fe80::1", "64:ff9b:1::a9fe:a9fe", "not-an-address", "1.2.3.4"])(
    "finds no IPv4 address in %s",
    (address) => {
      expect(embeddedIPv4(address)).toBeUndefined();
    },
  );
});
