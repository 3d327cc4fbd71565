-- The instance's own mail to operators (project invites): a queue apart from players' e-mail, never stored in a project's e-mail log.
SELECT pgboss.create_queue('operator-email', '{"policy":"standard"}');
