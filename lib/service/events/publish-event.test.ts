import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAgent, newUser, startTestService, type TestService } from "../testing/harness";
import { asOperator } from "../audit/record-operator-action";
import { publishEvent } from "./publish-event";

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

describe("publishEvent", () => {
  it("commits with the change it describes and rolls back with it", async () => {
    const agent = await newAgent(service);
    const kept = await service.db
      .transaction()
      .execute((trx) => publishEvent(trx, { type: "webhook.test", to: [agent.id, agent.id, null], data: { n: 1 } }));
    const marker = `rolled-back-${Date.now()}`;
    await expect(
      service.db.transaction().execute(async (trx) => {
        await publishEvent(trx, { type: "webhook.test", to: [agent.id], data: { marker } });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");

    const row = await service.db
      .selectFrom("domain_events")
      .selectAll()
      .where("id", "=", kept)
      .executeTakeFirstOrThrow();
    expect(row.recipient_ids).toEqual([agent.id]);
    expect(row.data).toEqual({ n: 1 });
    const lost = await service.db
      .selectFrom("domain_events")
      .select("id")
      .where("type", "=", "webhook.test")
      .where((eb) => eb(eb.ref("data", "->>").key("marker" as never), "=", marker))
      .execute();
    expect(lost).toHaveLength(0);
  });
});

describe("asOperator", () => {
  it("refuses a non-operator and writes nothing; an operator's action and its audit line commit together", async () => {
    const stranger = await newUser(service);
    const subjectId = `subject-${Date.now()}`;
    await expect(
      asOperator(
        service.ctx,
        { kind: "USER", userId: stranger.id, principalId: stranger.id } as never,
        { action: "test.act", subjectType: "test", subjectId, reason: "why" },
        async () => "done",
      ),
    ).rejects.toMatchObject({ code: "NOT_OPERATOR" });

    const operator = await newUser(service);
    const ctx = { ...service.ctx, config: { ...service.ctx.config, operatorAddresses: [operator.address] } };
    const result = await asOperator(
      ctx,
      { kind: "USER", userId: operator.id, principalId: operator.id } as never,
      { action: "test.act", subjectType: "test", subjectId, reason: "spam" },
      async () => "done",
    );
    expect(result).toBe("done");
    const lines = await service.db
      .selectFrom("operator_actions")
      .selectAll()
      .where("subject_id", "=", subjectId)
      .execute();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      operator_user_id: operator.id,
      operator_address: operator.address.toLowerCase(),
      action: "test.act",
      reason: "spam",
    });
  });
});
