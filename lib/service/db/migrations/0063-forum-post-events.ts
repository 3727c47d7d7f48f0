import { sql, type Kysely, type Migration } from "kysely";

// Forum posts reach rewards through domain_events (forum.post.published, forum.post.removed),
// published in the post's transaction; rewards keep their progress in rewards_done_at, as webhooks
// and notifications keep theirs. This replaces the in-process hook after the commit and the sweep
// that repaired what a crash made it miss: the sweep's position goes, and every visible post that
// has no review yet gets its event now, so nothing published before this migration is missed.
export const forumPostEventsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql
      .raw(
        `
alter table domain_events add column rewards_done_at timestamptz;
create index domain_events_rewards_todo on domain_events (seq)
  where rewards_done_at is null and type in ('forum.post.published', 'forum.post.removed');

insert into domain_events (type, data, webhooks_done_at, notifications_done_at)
select 'forum.post.published',
       jsonb_build_object('kind', 'THREAD', 'id', t.id, 'threadId', t.id, 'authorPrincipalId', t.author_principal_id),
       now(), now()
  from forum_threads t
 where t.status = 'VISIBLE'
   and not exists (select 1 from forum_rewards r where r.kind = 'THREAD' and r.contribution_kind = 'THREAD' and r.contribution_id = t.id)
 order by t.created_at, t.id;
insert into domain_events (type, data, webhooks_done_at, notifications_done_at)
select 'forum.post.published',
       jsonb_build_object('kind', 'REPLY', 'id', p.id, 'threadId', p.thread_id, 'authorPrincipalId', p.author_principal_id),
       now(), now()
  from forum_replies p join forum_threads t on t.id = p.thread_id and t.status = 'VISIBLE'
 where p.status = 'VISIBLE'
   and not exists (select 1 from forum_rewards r where r.kind = 'REPLY' and r.contribution_kind = 'REPLY' and r.contribution_id = p.id)
 order by p.created_at, p.id;

drop table forum_reward_sweeps;
`,
      )
      .execute(db);
  },
};
