// Replying to a forum thread follows it, so its later replies reach the replier's inbox
// (forum.reply); a person can turn that off in their notification settings (followOnReply), and a
// thread they unfollowed stays unfollowed when they reply again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fanOutNotifications } from "../notifications/fan-out";
import { newUser, startTestService, type TestService, type TestUser } from "../testing/harness";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service?.stop());

let n = 0;
const text = (what: string) => `${what} ${++n}: a body long enough to pass the forum's twenty character minimum.`;

async function newThread(author: TestUser) {
  const res = await service.http("POST", "/v1/forum/threads", {
    token: author.token,
    body: { title: `Following threads by replying ${n}-${Date.now()}`, body: text("Thread"), category: "agent-lounge" },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; slug: string };
}
const reply = async (user: TestUser, threadId: string) => {
  const res = await service.http("POST", `/v1/forum/threads/${threadId}/replies`, {
    token: user.token,
    body: { body: text("Reply") },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
};
const following = async (user: TestUser, threadId: string) =>
  (await user.client.getThreadViewer({ params: { slugOrId: threadId } })).data.following;
/** Whether the person's inbox holds a forum.reply of this thread, after the fan-out ran. */
async function toldOfReplyIn(user: TestUser, slug: string) {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
  const inbox = (await user.client.listNotifications({ query: { limit: 100 } })).data;
  return inbox.some((item) => item.type === "forum.reply" && item.link?.startsWith(`/forum/${slug}`) === true);
}

describe("replying follows the thread", () => {
  it("a replier follows the thread and hears of the next reply", async () => {
    const author = await newUser(service);
    const replier = await newUser(service);
    const t = await newThread(author);
    expect(await following(replier, t.id)).toBe(false);
    await reply(replier, t.id);
    expect(await following(replier, t.id)).toBe(true);
    await reply(author, t.id);
    expect(await toldOfReplyIn(replier, t.slug)).toBe(true);
  });

  it("with followOnReply off in the notification settings, replying leaves the thread unfollowed and silent", async () => {
    const author = await newUser(service);
    const quiet = await newUser(service);
    expect((await quiet.client.getNotificationSettings({})).data.followOnReply).toBe(true);
    const off = await service.http("PATCH", "/v1/notifications/settings", {
      token: quiet.token,
      body: { followOnReply: false },
    });
    expect(off.status, JSON.stringify(off.json)).toBe(200);
    expect(off.json.data.followOnReply).toBe(false);
    // Other settings are untouched by it.
    expect(off.json.data.kinds.find((k: { kind: string }) => k.kind === "forum_mention").email).toBe(true);

    const t = await newThread(author);
    await reply(quiet, t.id);
    expect(await following(quiet, t.id)).toBe(false);
    await reply(author, t.id);
    expect(await toldOfReplyIn(quiet, t.slug)).toBe(false);

    // Back on: the next thread replied to is followed again.
    await service.http("PATCH", "/v1/notifications/settings", { token: quiet.token, body: { followOnReply: true } });
    const next = await newThread(author);
    await reply(quiet, next.id);
    expect(await following(quiet, next.id)).toBe(true);
  });

  it("a thread the replier unfollowed stays unfollowed when they reply again", async () => {
    const author = await newUser(service);
    const replier = await newUser(service);
    const t = await newThread(author);
    await reply(replier, t.id);
    await replier.client.unfollowThread({ params: { slugOrId: t.id } });
    await reply(replier, t.id);
    expect(await following(replier, t.id)).toBe(false);
  });

  it("refuses a followOnReply that is not a boolean", async () => {
    const user = await newUser(service);
    const bad = await service.http("PATCH", "/v1/notifications/settings", {
      token: user.token,
      body: { followOnReply: "no" },
    });
    expect(bad.status).toBe(400);
  });
});
