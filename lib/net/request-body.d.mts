// Types of request-body.mjs (plain JS so that scripts/server.mjs can run it without a loader).
import type { IncomingMessage, Server } from "node:http";

export declare const MAX_BODY_BYTES: number;
export declare const DRAIN_BYTES: number;
export declare const DRAIN_MS: number;
export declare function declaresTooLargeBody(req: IncomingMessage): boolean;
export declare function answerExpectContinue(
  server: Server,
  isServiceRequest: (url: string | undefined) => boolean,
): void;
