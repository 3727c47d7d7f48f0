import type { ServiceContext } from "../context";

/**
 * Called after a thread or reply is published (committed). Rewards register here to review the
 * contribution; a hook's failure is logged and never undoes the post, because the forum stays
 * open for publishing whatever happens to rewards.
 */
export interface PublishedContribution {
  kind: "THREAD" | "REPLY";
  id: string;
  threadId: string;
  authorPrincipalId: string;
  body: string;
}

export type PublishHook = (ctx: ServiceContext, contribution: PublishedContribution) => Promise<void>;

export const publishHooks: PublishHook[] = [];

export async function runPublishHooks(ctx: ServiceContext, contribution: PublishedContribution): Promise<void> {
  for (const hook of publishHooks) {
    try {
      await hook(ctx, contribution);
    } catch (error) {
      console.error(`[forum] publish hook failed for ${contribution.kind} ${contribution.id}`, error);
    }
  }
}
