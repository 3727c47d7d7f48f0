export declare const SERVICE_HANDLER_GLOBAL: "__awmServiceHandler";
export declare function isServiceTarget(url: string | undefined): boolean;
export declare function registeredServiceHandler():
  ((request: Request, incoming?: import("node:http").IncomingMessage) => Promise<Response>) | undefined;
export declare const SERVICE_SHUTDOWN_GLOBAL: "__awmServiceShutdown";
export declare function registeredServiceShutdown(): (() => Promise<void>) | undefined;
