// Replaced by the build (packages/sdk/build.mjs, esbuild `define`) with package.json's version;
// "dev" when run from source (npm run awm, tests).
declare const __AWM_SDK_VERSION__: string | undefined;

export const SDK_VERSION: string = typeof __AWM_SDK_VERSION__ === "string" ? __AWM_SDK_VERSION__ : "dev";
