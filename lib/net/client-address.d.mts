// Types of client-address.mjs (plain JS so that scripts/server.mjs can run it without a loader).
type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export type TrustProxy =
  { kind: "off" } | { kind: "hops"; hops: number } | { kind: "list"; ranges: Array<[unknown, number]> };

export declare const CLIENT_IP_HEADER: "x-awm-client-ip";
export declare const FORWARDED_HEADER: "x-awm-forwarded";
export declare const DASHBOARD_CLIENT_HEADER: "x-awm-dashboard-client";
export declare const PAGE_PATH_HEADER: "x-awm-page-path";

export declare function parseTrustProxy(value: string | undefined): TrustProxy;
export declare function carriesForwardingHeaders(headers: HeaderSource): boolean;
export declare function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trust: TrustProxy,
): string;
export declare function dashboardClientKey(sessionSecret: string): Buffer;
export declare function signDashboardClient(key: Buffer, address: string, forwarded: boolean, now?: number): string;
export declare function verifyDashboardClient(
  key: Buffer | null,
  value: string | undefined,
  now?: number,
): { clientIp: string; forwarded: boolean } | null;
export declare function resolveClient(input: {
  peer: string | undefined;
  headers: HeaderSource;
  trust: TrustProxy;
  dashboardKey?: Buffer | null;
  now?: number;
}): { clientIp: string; forwarded: boolean };
