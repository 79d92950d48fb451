import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createSite } from "../src/serving/site.js";
import { grantOfFramePath, grantedFramePolicy, viewFramePath } from "../src/surface-host/view-csp.js";

// Issue 22 §3: the origins of an MCP Apps view's `_meta.ui.csp` reach its frame's policy only as a grant, and only as
// bare origins: nothing else can be written into the policy through one.
const frameHtml = readFileSync(resolve(import.meta.dirname, "../public/surface-frame.html"), "utf8");
const site = createSite({ indexHtml: '<meta http-equiv="Content-Security-Policy" content="default-src \'self\'">', frameHtml, readFile: () => Promise.resolve(undefined) });
const text = (body: Uint8Array) => new TextDecoder().decode(body);

describe("a view's granted origins", () => {
  it("travel in the frame page's path and come back as they were", () => {
    const grant = { connect_domains: ["https://api.example.com", "wss://live.example.com:8443"], resource_domains: ["https://cdn.example.com"] };
    const path = viewFramePath(grant)!;
    expect(path).toMatch(/^surface-frame-view\/[0-9a-f]+\.html$/);
    expect(grantOfFramePath(`/${path}`)).toEqual(grant);
    expect(viewFramePath({ connect_domains: [], resource_domains: [] })).toBeUndefined();
  });

  it("are bare origins only: a policy fragment, a path or a wildcard is refused", () => {
    for (const bad of ["https://a.example; script-src *", "https://a.example/path", "*", "https://*.example.com", "javascript:alert(1)", "HTTPS://A.EXAMPLE", "https://a.example 'unsafe-eval'"]) {
      expect(() => viewFramePath({ connect_domains: [bad], resource_domains: [] }), bad).toThrow(/not an origin/);
      const hex = Buffer.from(JSON.stringify({ c: [bad], r: [] })).toString("hex");
      expect(grantOfFramePath(`/surface-frame-view/${hex}.html`), bad).toBeUndefined();
    }
    expect(grantOfFramePath("/surface-frame-view/zz.html")).toBeUndefined();
    expect(grantOfFramePath("/surface-frame.html")).toBeUndefined();
  });

  it("widen only connect-src and the resource directives", () => {
    const policy = "default-src 'none'; script-src 'unsafe-inline'; img-src data: blob:; connect-src 'none'; frame-src 'none'";
    expect(grantedFramePolicy(policy, { connect_domains: ["https://api.example.com"], resource_domains: ["https://cdn.example.com"] })).toBe(
      "default-src 'none'; script-src 'unsafe-inline' https://cdn.example.com; img-src data: blob: https://cdn.example.com; connect-src https://api.example.com; frame-src 'none'",
    );
  });

  it("are served by the site in the frame page's header and meta policy alike; without a grant the frame reaches nothing", async () => {
    const plain = await site("/surface-frame.html");
    expect(plain.headers["content-security-policy"]).toContain("connect-src 'none'");
    const path = viewFramePath({ connect_domains: ["https://api.example.com"], resource_domains: [] })!;
    const granted = await site(`/${path}`);
    expect(granted.status).toBe(200);
    expect(granted.headers["content-security-policy"]).toContain("connect-src https://api.example.com");
    expect(granted.headers["permissions-policy"]).toBe(plain.headers["permissions-policy"]);
    expect(text(granted.body)).toContain("connect-src https://api.example.com;");
    expect(text(granted.body)).not.toContain("connect-src 'none'");
    expect((await site("/surface-frame-view/00.html")).status).toBe(404);
  });
});
