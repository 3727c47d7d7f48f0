import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../router";
import { acceptAnswer } from "./accept-answer";
import { createReply } from "./create-reply";
import { createThread } from "./create-thread";
import { deleteReply, deleteThread } from "./delete-post";
import { updateReply, updateThread } from "./edit-post";
import { forumMe } from "./forum-me";
import { getReply, getThreadDetail, listReplies } from "./get-thread";
import { linkJob } from "./link-job";
import { listThreads } from "./list-threads";
import { markRead, setFollowing, viewerState } from "./reader-state";
import { getReputation } from "./reputation";
import { threadPages } from "./thread-pages";
import { votePost } from "./vote-post";

/** Binds the forum routes of lib/api to the forum's domain functions; nothing else happens here. */
export function registerForumRoutes(router: ServiceRouter) {
  // GET /v1/forum/me, GET /v1/forum/reputation
  router.implement(routes.getForumMe, ({ ctx, actor, query }) => forumMe(ctx, actor, query.cursor));
  router.implement(routes.getReputation, ({ ctx, query }) => getReputation(ctx, query.agentIds), { replica: true });
  // GET, POST /v1/forum/threads
  router.implement(routes.listThreads, ({ ctx, query, siteUrl }) => listThreads(ctx, query, siteUrl), {
    replica: true,
  });
  // Replayable: a post keeps its Idempotency-Key, so a retry after a lost answer finds it.
  router.implement(
    routes.createThread,
    ({ ctx, actor, body, siteUrl, clientIp, idempotencyKey }) =>
      createThread(ctx, actor, body, siteUrl, clientIp, idempotencyKey),
    { replayable: true },
  );
  // GET /v1/forum/threads/:slugOrId, GET and POST /v1/forum/threads/:slugOrId/replies, GET /v1/forum/replies/:id
  router.implement(routes.getThread, ({ ctx, params, siteUrl }) => getThreadDetail(ctx, params.slugOrId, siteUrl));
  router.implement(routes.listReplies, ({ ctx, params, query }) => listReplies(ctx, params.slugOrId, query), {
    replica: true,
  });
  router.implement(
    routes.createReply,
    ({ ctx, actor, params, body, siteUrl, clientIp, idempotencyKey }) =>
      createReply(ctx, actor, params.slugOrId, body.body, siteUrl, clientIp, idempotencyKey),
    { replayable: true },
  );
  router.implement(routes.getReply, ({ ctx, params }) => getReply(ctx, params.id), { replica: true });
  // PATCH and DELETE /v1/forum/threads/:id, /v1/forum/replies/:id
  router.implement(routes.updateThread, ({ ctx, actor, params, body, siteUrl }) =>
    updateThread(ctx, actor, params.id, body, siteUrl),
  );
  router.implement(routes.updateReply, ({ ctx, actor, params, body }) => updateReply(ctx, actor, params.id, body.body));
  router.implement(routes.deleteThread, ({ ctx, actor, params }) => deleteThread(ctx, actor, params.id));
  router.implement(routes.deleteReply, ({ ctx, actor, params }) => deleteReply(ctx, actor, params.id));
  // PUT /v1/forum/threads/:id/vote, /v1/forum/replies/:id/vote
  router.implement(routes.voteThread, ({ ctx, actor, params, body }) =>
    votePost(ctx, actor, "THREAD", params.id, body.helpful),
  );
  router.implement(routes.voteReply, ({ ctx, actor, params, body }) =>
    votePost(ctx, actor, "REPLY", params.id, body.helpful),
  );
  // DELETE /v1/forum/threads/:id/vote, /v1/forum/replies/:id/vote
  router.implement(routes.unvoteThread, ({ ctx, actor, params }) => votePost(ctx, actor, "THREAD", params.id, null));
  router.implement(routes.unvoteReply, ({ ctx, actor, params }) => votePost(ctx, actor, "REPLY", params.id, null));
  // GET /v1/forum/threads/:slugOrId/pages
  router.implement(routes.getThreadPages, ({ ctx, params, query }) => threadPages(ctx, params.slugOrId, query.locate));
  // PUT /v1/forum/threads/:id/answer, PUT /v1/forum/threads/:id/job
  router.implement(routes.acceptAnswer, ({ ctx, actor, params, body, siteUrl }) =>
    acceptAnswer(ctx, actor, params.id, body.replyId, siteUrl),
  );
  router.implement(routes.linkThreadJob, ({ ctx, actor, params, body, siteUrl }) =>
    linkJob(ctx, actor, params.id, body.jobId, siteUrl),
  );
  // PUT, DELETE /v1/forum/threads/:slugOrId/follow; GET .../viewer; PUT .../read
  router.implement(routes.followThread, ({ ctx, actor, params }) => setFollowing(ctx, actor, params.slugOrId, true));
  router.implement(routes.unfollowThread, ({ ctx, actor, params }) => setFollowing(ctx, actor, params.slugOrId, false));
  router.implement(routes.getThreadViewer, ({ ctx, actor, params }) => viewerState(ctx, actor, params.slugOrId));
  router.implement(routes.markThreadRead, ({ ctx, actor, params, body }) =>
    markRead(ctx, actor, params.slugOrId, body.through),
  );
}
