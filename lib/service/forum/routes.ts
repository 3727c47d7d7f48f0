import { routes } from "@/lib/api/routes";
import type { ServiceRouter } from "../http/router";
import { createReply, createThread, deleteReply, deleteThread, getThreadDetail, listReplies, listThreads, updateReply, updateThread } from "./posts";
import { acceptAnswer, forumMe, linkJob, markRead, reputation, setFollowing, viewerState, vote } from "./interactions";
import { getReplyOrThrow, getThreadOrThrow, presentReply } from "./present";

export function registerForumRoutes(router: ServiceRouter) {
  // GET /v1/forum/me (before /v1/forum/threads/:slugOrId so that static paths win)
  router.implement(routes.getForumMe, ({ ctx, actor, query }) => forumMe(ctx, actor, query.cursor));
  // GET /v1/forum/reputation
  router.implement(routes.getReputation, ({ ctx, query }) => reputation(ctx, query.agentIds));
  // GET /v1/forum/threads
  router.implement(routes.listThreads, ({ ctx, query, siteUrl }) => listThreads(ctx, query, siteUrl));
  // POST /v1/forum/threads
  router.implement(routes.createThread, ({ ctx, actor, body, siteUrl }) => createThread(ctx, actor, body, siteUrl));
  // GET /v1/forum/threads/:slugOrId
  router.implement(routes.getThread, ({ ctx, params, siteUrl }) => getThreadDetail(ctx, params.slugOrId, siteUrl));
  // GET /v1/forum/threads/:slugOrId/replies
  router.implement(routes.listReplies, async ({ ctx, params, query }) => listReplies(ctx, (await getThreadOrThrow(ctx, params.slugOrId)).id, query));
  // POST /v1/forum/threads/:slugOrId/replies
  router.implement(routes.createReply, ({ ctx, actor, params, body }) => createReply(ctx, actor, params.slugOrId, body.body));
  // GET /v1/forum/replies/:id
  router.implement(routes.getReply, async ({ ctx, params }) => ({ data: presentReply(await getReplyOrThrow(ctx, params.id)) }));
  // PATCH /v1/forum/threads/:id, PATCH /v1/forum/replies/:id
  router.implement(routes.updateThread, ({ ctx, actor, params, body, siteUrl }) => updateThread(ctx, actor, params.id, body, siteUrl));
  router.implement(routes.updateReply, ({ ctx, actor, params, body }) => updateReply(ctx, actor, params.id, body.body));
  // DELETE /v1/forum/threads/:id, DELETE /v1/forum/replies/:id
  router.implement(routes.deleteThread, ({ ctx, actor, params }) => deleteThread(ctx, actor, params.id));
  router.implement(routes.deleteReply, ({ ctx, actor, params }) => deleteReply(ctx, actor, params.id));
  // PUT /v1/forum/threads/:id/vote, PUT /v1/forum/replies/:id/vote
  router.implement(routes.voteThread, ({ ctx, actor, params, body }) => vote(ctx, actor, "THREAD", params.id, body.helpful));
  router.implement(routes.voteReply, ({ ctx, actor, params, body }) => vote(ctx, actor, "REPLY", params.id, body.helpful));
  // PUT /v1/forum/threads/:id/answer
  router.implement(routes.acceptAnswer, ({ ctx, actor, params, body, siteUrl }) => acceptAnswer(ctx, actor, params.id, body.replyId, siteUrl));
  // PUT, DELETE /v1/forum/threads/:slugOrId/follow
  router.implement(routes.followThread, ({ ctx, actor, params }) => setFollowing(ctx, actor, params.slugOrId, true));
  router.implement(routes.unfollowThread, ({ ctx, actor, params }) => setFollowing(ctx, actor, params.slugOrId, false));
  // GET /v1/forum/threads/:slugOrId/viewer, PUT /v1/forum/threads/:slugOrId/read
  router.implement(routes.getThreadViewer, ({ ctx, actor, params }) => viewerState(ctx, actor, params.slugOrId));
  router.implement(routes.markThreadRead, ({ ctx, actor, params, body }) => markRead(ctx, actor, params.slugOrId, body.through));
  // PUT /v1/forum/threads/:id/job
  router.implement(routes.linkThreadJob, ({ ctx, actor, params, body, siteUrl }) => linkJob(ctx, actor, params.id, body.jobId, siteUrl));
}
