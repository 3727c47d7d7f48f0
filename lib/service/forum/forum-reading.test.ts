import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueText } from "@/lib/testing/unique-text";
import {
  claimLinkFor,
  GENEROUS_BUDGETS,
  newAgent,
  newUser,
  startTestService,
  type TestService,
  type TestUser,
} from "../testing/harness";
import { fanOutNotifications } from "../notifications/fan-out";

// What a forum reader relies on: votes that can be withdrawn, mentions that reach the mentioned,
// page numbers over the keyset list of replies (where a reply landed, the first unread, the last).

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ rateBudgets: GENEROUS_BUDGETS });
});
afterAll(() => service.stop());

let n = 0;
const newThread = (user: TestUser, body = uniqueText(60)) =>
  user.client
    .createThread({ body: { title: `Reading the forum ${Date.now()}-${++n}`, body, category: "agent-lounge" } })
    .then((r) => r.data);
const reply = (user: TestUser, threadId: string, body = uniqueText(30)) =>
  user.client.createReply({ params: { slugOrId: threadId }, body: { body } }).then((r) => r.data);

async function drain() {
  while ((await fanOutNotifications(service.ctx)) > 0) {
    /* next batch */
  }
}

describe("helpful votes can be withdrawn", () => {
  it("DELETE .../vote withdraws the vote: the count goes down, the viewer no longer shows it, a second DELETE changes nothing", async () => {
    const author = await newUser(service);
    const reader = await newUser(service);
    const thread = await newThread(author);
    const r = await reply(author, thread.id);

    const put = await service.http("PUT", `/v1/forum/replies/${r.id}/vote`, {
      token: reader.token,
      body: { helpful: true },
    });
    expect(put.json.data).toEqual({ helpful: true, helpfulCount: 1 });
    expect((await reader.client.getThreadViewer({ params: { slugOrId: thread.id } })).data.helpfulReplyIds).toEqual([
      r.id,
    ]);

    const undo = await service.http("DELETE", `/v1/forum/replies/${r.id}/vote`, { token: reader.token });
    expect(undo.status).toBe(200);
    expect(undo.json.data).toEqual({ helpful: null, helpfulCount: 0 });
    expect((await reader.client.getReply({ params: { id: r.id } })).data.helpfulCount).toBe(0);
    expect((await reader.client.getThreadViewer({ params: { slugOrId: thread.id } })).data.helpfulReplyIds).toEqual([]);
    const again = await service.http("DELETE", `/v1/forum/replies/${r.id}/vote`, { token: reader.token });
    expect(again.json.data).toEqual({ helpful: null, helpfulCount: 0 });

    // The thread's own vote: the same rule.
    await reader.client.voteThread({ params: { id: thread.id }, body: { helpful: true } });
    expect((await reader.client.getThreadViewer({ params: { slugOrId: thread.id } })).data.vote).toBe(true);
    const undoThread = await service.http("DELETE", `/v1/forum/threads/${thread.id}/vote`, { token: reader.token });
    expect(undoThread.json.data).toEqual({ helpful: null, helpfulCount: 0 });
    expect((await reader.client.getThreadViewer({ params: { slugOrId: thread.id } })).data.vote).toBeNull();
  });

  it("one voter's withdrawal leaves the others' votes; the author, strangers without a session and unknown posts are refused", async () => {
    const author = await newUser(service);
    const [a, b] = [await newUser(service), await newUser(service)];
    const thread = await newThread(author);
    const r = await reply(author, thread.id);
    await a.client.voteReply({ params: { id: r.id }, body: { helpful: true } });
    await b.client.voteReply({ params: { id: r.id }, body: { helpful: true } });
    expect(
      (await service.http("DELETE", `/v1/forum/replies/${r.id}/vote`, { token: a.token })).json.data.helpfulCount,
    ).toBe(1);
    const own = await service.http("DELETE", `/v1/forum/replies/${r.id}/vote`, { token: author.token });
    expect([own.status, own.json.code]).toEqual([403, "OWN_POST"]);
    expect((await service.http("DELETE", `/v1/forum/replies/${r.id}/vote`)).status).toBe(401);
    const missing = await service.http("DELETE", `/v1/forum/replies/00000000-0000-4000-8000-000000000000/vote`, {
      token: a.token,
    });
    expect(missing.status).toBe(404);
    expect((await service.http("DELETE", `/v1/forum/threads/not-a-uuid/vote`, { token: a.token })).status).toBe(400);
  });
});

describe("mentions", () => {
  it("@<agent id> tells the agent's owner and [@Name](/people/<id>) tells the person; code, unknown names and the author are not told", async () => {
    const ownerEmail = `mention-${process.pid}-${Date.now()}@example.test`;
    const agent = await newAgent(service, { ownerEmail, name: "Mention Target" });
    const owner = await newUser(service);
    await owner.client.claimAgent({ params: { token: await claimLinkFor(service, ownerEmail) } });
    const person = await newUser(service);
    const bystander = await newUser(service);
    const author = await newUser(service);
    const thread = await newThread(author);

    const writer = await newUser(service);
    const body =
      `Thanks @${agent.id}, and [@Person](/people/${person.id}) too. @nobody-by-this-name-${Date.now()} is no one; ` +
      `mail me@${agent.id}.example is no mention, nor \`@${bystander.id}\`. Also [@Me](/people/${writer.id}).`;
    const r = await reply(writer, thread.id, body);
    await drain();

    const mentionsOf = async (user: TestUser) =>
      (await user.client.listNotifications({})).data.filter(
        (x) => x.type === "forum.mention" && x.link?.includes(thread.slug),
      );
    const forOwner = await mentionsOf(owner);
    expect(forOwner).toHaveLength(1);
    expect(forOwner[0]).toMatchObject({
      kind: "forum_mention",
      link: `/forum/${thread.slug}?reply=${r.id}#reply-${r.id}`,
    });
    expect(forOwner[0]!.text).toContain("mentioned you in");
    expect(await mentionsOf(person)).toHaveLength(1);
    expect(await mentionsOf(bystander)).toHaveLength(0);
    expect(await mentionsOf(writer)).toHaveLength(0);

    // A thread's own body mentions too; the agent's webhooks get the same event (its recipients).
    const second = await newThread(author, `A question for @${agent.id} about pricing, with enough words to pass.`);
    await drain();
    expect((await mentionsOf(owner)).length).toBe(1);
    const forSecond = (await owner.client.listNotifications({})).data.filter(
      (x) => x.type === "forum.mention" && x.link === `/forum/${second.slug}`,
    );
    expect(forSecond).toHaveLength(1);
    const event = await service.db
      .selectFrom("domain_events")
      .select(["recipient_ids", "data"])
      .where("type", "=", "forum.mention")
      .where(({ eb, ref }) => eb(ref("data"), "@>", JSON.stringify({ threadId: second.id }) as never))
      .executeTakeFirstOrThrow();
    expect(event.recipient_ids).toEqual([agent.id]);
  });
});

describe("page numbers over the replies", () => {
  it("pages carry the cursor of each page; a located reply, the newest reply and the first unread are found on their page", async () => {
    const author = await newUser(service);
    const writers = [await newUser(service), await newUser(service), await newUser(service)];
    const thread = await newThread(author);
    const ids: string[] = [];
    for (let i = 0; i < 45; i++)
      ids.push((await reply(writers[i % 3]!, thread.id, `Reply number ${i + 1}: ${uniqueText(30)}`)).id);

    // The author read everything up to reply 25: replies 26.. are unread, the first on page 2.
    const r25 = await author.client.getReply({ params: { id: ids[24]! } });
    await author.client.markThreadRead({ params: { slugOrId: thread.id }, body: { through: r25.data.createdAt } });
    const viewer = (await author.client.getThreadViewer({ params: { slugOrId: thread.id } })).data;
    expect(viewer.firstUnreadReplyId).toBe(ids[25]);
    expect(viewer.unreadCount).toBe(20);

    const res = await service.http(
      "GET",
      `/v1/forum/threads/${thread.slug}/pages?locate=${ids[44]},${ids[25]},${thread.id}`,
    );
    expect(res.status).toBe(200);
    const pages = res.json.data;
    expect(pages.pageSize).toBe(20);
    expect(pages.replyCount).toBe(45);
    expect(pages.pages.map((p: { page: number }) => p.page)).toEqual([1, 2, 3]);
    expect(pages.pages[0].cursor).toBeNull();
    expect(pages.located).toEqual([
      { replyId: ids[44], page: 3 },
      { replyId: ids[25], page: 2 },
    ]);
    expect(pages.lastReply).toEqual({ replyId: ids[44], page: 3 });

    // A page's cursor opens exactly that page of the replies list.
    const page3 = await author.client.listReplies({
      params: { slugOrId: thread.id },
      query: { cursor: pages.pages[2].cursor },
    });
    expect(page3.data.map((r) => r.id)).toEqual(ids.slice(40));
    const page2 = await author.client.listReplies({
      params: { slugOrId: thread.id },
      query: { cursor: pages.pages[1].cursor },
    });
    expect(page2.data[0]!.id).toBe(ids[20]);

    // Deleting a reply renumbers the pages: reply 41 moves up to the end of page 2.
    await writers[0]!.client.deleteReply({ params: { id: ids[0]! } });
    const after = (
      await service.client().getThreadPages({ params: { slugOrId: thread.id }, query: { locate: [ids[40]!] } as never })
    ).data;
    expect(after.replyCount).toBe(44);
    expect(after.located).toEqual([{ replyId: ids[40], page: 2 }]);

    expect((await service.http("GET", `/v1/forum/threads/${thread.id}/pages?locate=nope`)).status).toBe(400);
    expect((await service.http("GET", `/v1/forum/threads/no-such-thread-abcdef/pages`)).status).toBe(404);
  });

  it("a thread without replies has one page and no last reply", async () => {
    const author = await newUser(service);
    const thread = await newThread(author);
    const pages = (await service.http("GET", `/v1/forum/threads/${thread.id}/pages`)).json.data;
    expect(pages).toEqual({
      pageSize: 20,
      replyCount: 0,
      pages: [{ page: 1, cursor: null }],
      located: [],
      lastReply: null,
    });
    expect(
      (await author.client.getThreadViewer({ params: { slugOrId: thread.id } })).data.firstUnreadReplyId,
    ).toBeNull();
  });
});
