export declare const SERVICE_HANDLER_GLOBAL: "__awmServiceHandler";
export declare function isServiceTarget(url: string | undefined): boolean;
export declare function registeredServiceHandler(): ((request: Request) => Promise<Response>) | undefined;
