-- Discovery's visibility rule leaves out deleted and banned owners: a partial index makes that set
-- (a handful of rows) a tiny scan instead of a walk over every user.
CREATE INDEX "user_summaries_hidden_idx" ON "user_summaries" ("user_id") WHERE "is_deleted" OR "is_banned";
