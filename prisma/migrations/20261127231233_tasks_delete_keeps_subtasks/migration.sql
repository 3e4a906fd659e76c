BEGIN;

-- Deleting a task makes its subtasks top-level (spec 002 DELETE /tasks/{id} "Deletes task and its chat channel")
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_parent_task_id_fkey";
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_task_id_fkey" FOREIGN KEY ("parent_task_id") REFERENCES "tasks"("id") ON DELETE SET NULL ON UPDATE CASCADE;

COMMIT;
