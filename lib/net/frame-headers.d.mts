export declare const FRAME_HEADERS: ReadonlyArray<{ key: string; value: string }>;
