/**
 * Generated from the OpenAPI document the gateway serves at /openapi.json (`describeApi(CONTEXTS)`,
 * the same `buildOpenApi` call `startGateway` makes) by openapi-typescript. Do not edit: the build
 * rewrites it (packages/sdk/scripts/generate-types.mjs), and a test fails when it is not committed.
 */
export interface paths {
    "/v1/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List contacts
         * @description Use it to page through contacts, find one by svc_uid, company_domain or owner, or sync changes with updated_since. Returns the workspace's contacts a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `company_domain`, `internal_stage`, `owner_id`, `organization_id`, `source`, `country`, `state`, `city`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `first_name`, `last_name`, `email`, `company_name`. Requires scope `contacts:read`.
         */
        get: operations["listContacts"];
        put?: never;
        /**
         * Create a contact
         * @description Needs at least one of email, first_name or last_name; an email already used by another contact is 409. Creates a contact and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `contacts:write`.
         */
        post: operations["createContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/contacts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a contact
         * @description Use it to read a contact after an event names it. Returns one contact by id; 404 if the workspace has none with that id. Requires scope `contacts:read`.
         */
        get: operations["getContact"];
        put?: never;
        post?: never;
        /**
         * Delete a contact
         * @description Its open enrollments exit with exit_reason contact_deleted. Deletes a contact; 204 with no body, 404 if the workspace has none with that id. Requires scope `contacts:delete`.
         */
        delete: operations["deleteContact"];
        options?: never;
        head?: never;
        /**
         * Update a contact
         * @description Use it to correct details, change the owner or stage, or set custom fields. Changes a contact by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `contacts:write`.
         */
        patch: operations["updateContact"];
        trace?: never;
    };
    "/v1/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List organizations
         * @description Use it to page through companies or find one by domain. Returns the workspace's organizations a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `domain`, `industry`, `country`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `name`, `domain`, `website_url`. Requires scope `organizations:read`.
         */
        get: operations["listOrganizations"];
        put?: never;
        /**
         * Create an organization
         * @description Needs a name (not null); domains need not be unique. Creates a organization and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `organizations:write`.
         */
        post: operations["createOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/organizations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get an organization
         * @description Use it to read a company named by a contact's organization_id. Returns one organization by id; 404 if the workspace has none with that id. Requires scope `organizations:read`.
         */
        get: operations["getOrganization"];
        put?: never;
        post?: never;
        /**
         * Delete an organization
         * @description Use it to remove a company record. Deletes a organization; 204 with no body, 404 if the workspace has none with that id. Requires scope `organizations:delete`.
         */
        delete: operations["deleteOrganization"];
        options?: never;
        head?: never;
        /**
         * Update an organization
         * @description Use it to correct a company's details. Changes a organization by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `organizations:write`.
         */
        patch: operations["updateOrganization"];
        trace?: never;
    };
    "/v1/pools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pools
         * @description Use it to find pools by owner or visibility. Returns the workspace's pools a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `owner_id`, `visibility`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `name`, `description`. Requires scope `pools:read`.
         */
        get: operations["listPools"];
        put?: never;
        /**
         * Create a pool
         * @description Create the pool, then add members with POST /v1/pools/{id}/members (up to 500 per call). Creates a pool and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `pools:write`.
         */
        post: operations["createPool"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pools/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a pool
         * @description contacts_count tells how many members it has. Returns one pool by id; 404 if the workspace has none with that id. Requires scope `pools:read`.
         */
        get: operations["getPool"];
        put?: never;
        post?: never;
        /**
         * Delete a pool
         * @description The member contacts themselves are not deleted. Deletes a pool; 204 with no body, 404 if the workspace has none with that id. Requires scope `pools:delete`.
         */
        delete: operations["deletePool"];
        options?: never;
        head?: never;
        /**
         * Update a pool
         * @description Use it to rename a pool or change its visibility. Changes a pool by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `pools:write`.
         */
        patch: operations["updatePool"];
        trace?: never;
    };
    "/v1/pools/{id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add contacts to a pool
         * @description Adds up to 500 contacts to the pool in one transaction (one event); use it to build a pool before enrolling it in a flow. Ids that are members already, or that name no contact of the workspace, are listed, not refused. Repeat ids count once. Requires scope `pool_contacts:write`.
         */
        post: operations["addPoolMembers"];
        /**
         * Remove contacts from a pool
         * @description Removes up to 500 contacts from the pool in one transaction (one event); the contacts themselves stay. Ids that are not members, or that name no contact, are listed, not refused. Requires scope `pool_contacts:delete`.
         */
        delete: operations["removePoolMembers"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pool_contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List pool contacts
         * @description Filter by pool_id to read a pool's members, or by contact_id for a contact's pools. Returns the workspace's pool contacts a page at a time, by default newest first on `added_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `pool_id`, `contact_id`, `added_by`; bounds `added_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `pool_contacts:read`.
         */
        get: operations["listPoolContacts"];
        put?: never;
        /**
         * Create a pool contact
         * @description Adds one contact to one pool; for many at once use POST /v1/pools/{id}/members. Creates a pool contact and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `pool_contacts:write`.
         */
        post: operations["createPoolContact"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/pool_contacts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a pool contact
         * @description Use it to read one membership. Returns one pool contact by id; 404 if the workspace has none with that id. Requires scope `pool_contacts:read`.
         */
        get: operations["getPoolContact"];
        put?: never;
        post?: never;
        /**
         * Delete a pool contact
         * @description Removes the contact from the pool; the contact stays. Deletes a pool contact; 204 with no body, 404 if the workspace has none with that id. Requires scope `pool_contacts:delete`.
         */
        delete: operations["deletePoolContact"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tasks
         * @description Filter by assignee_id and status=open for a work queue, or by flow_enrollment_id for a flow's tasks. Returns the workspace's tasks a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `status`, `priority`, `assignee_id`, `contact_id`, `organization_id`, `type`, `suggested_action`, `flow_enrollment_id`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `title`, `description`. Requires scope `tasks:read`.
         */
        get: operations["listTasks"];
        put?: never;
        /**
         * Create a task
         * @description Create a to-do; a title is required. Creates a task and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `tasks:write`.
         */
        post: operations["createTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a task
         * @description Use it to read one task. Returns one task by id; 404 if the workspace has none with that id. Requires scope `tasks:read`.
         */
        get: operations["getTask"];
        put?: never;
        post?: never;
        /**
         * Delete a task
         * @description Use it to remove a task created by mistake. Deletes a task; 204 with no body, 404 if the workspace has none with that id. Requires scope `tasks:delete`.
         */
        delete: operations["deleteTask"];
        options?: never;
        head?: never;
        /**
         * Update a task
         * @description Set status to completed when done (a flow waiting on the task moves on); completed_at is set for you. Changes a task by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `tasks:write`.
         */
        patch: operations["updateTask"];
        trace?: never;
    };
    "/v1/call_logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List call logs
         * @description Use it for a contact's or a user's calls. Returns the workspace's call logs a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `contact_id`, `owner_id`, `status`, `outcome`, `mode`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `notes`. Requires scope `call_logs:read`.
         */
        get: operations["listCallLogs"];
        put?: never;
        /**
         * Create a call log
         * @description Log a call after it happened; it moves the contact's last_engagement_at and appears in the timeline. Creates a call log and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `call_logs:write`.
         */
        post: operations["createCallLog"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/call_logs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a call log
         * @description Use it to read one logged call. Returns one call log by id; 404 if the workspace has none with that id. Requires scope `call_logs:read`.
         */
        get: operations["getCallLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/meetings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List meetings
         * @description Bounded by scheduled_start: use since/until for a calendar window. Returns the workspace's meetings a page at a time, by default newest first on `scheduled_start`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `contact_id`, `owner_id`, `status`, `outcome`; bounds `scheduled_start` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `title`, `description`, `location`. Requires scope `meetings:read`.
         */
        get: operations["listMeetings"];
        put?: never;
        /**
         * Create a meeting
         * @description Book a meeting: title, scheduled_start and scheduled_end (after the start) are required. Creates a meeting and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `meetings:write`.
         */
        post: operations["createMeeting"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/meetings/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a meeting
         * @description Use it to read one meeting. Returns one meeting by id; 404 if the workspace has none with that id. Requires scope `meetings:read`.
         */
        get: operations["getMeeting"];
        put?: never;
        post?: never;
        /**
         * Delete a meeting
         * @description Use it to remove a meeting entered by mistake; cancel with status instead to keep its history. Deletes a meeting; 204 with no body, 404 if the workspace has none with that id. Requires scope `meetings:delete`.
         */
        delete: operations["deleteMeeting"];
        options?: never;
        head?: never;
        /**
         * Update a meeting
         * @description Reschedule, cancel or record the outcome; scheduled_end must stay after scheduled_start. Changes a meeting by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `meetings:write`.
         */
        patch: operations["updateMeeting"];
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List users
         * @description Use it to find owners and assignees by role or is_active. Returns the workspace's users a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `role`, `is_active`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `email`, `full_name`. Requires scope `users:read`.
         */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get an user
         * @description Use it to read the user an owner_id names. Returns one user by id; 404 if the workspace has none with that id. Requires scope `users:read`.
         */
        get: operations["getUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List integrations
         * @description Use it to see whether the workspace's mail server is connected. Returns the workspace's integrations a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `type`, `status`, `enabled`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `integrations:read`.
         */
        get: operations["listIntegrations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/integrations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get an integration
         * @description status and status_reason say what the last check found. Returns one integration by id; 404 if the workspace has none with that id. Requires scope `integrations:read`.
         */
        get: operations["getIntegration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sent_emails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sent emails
         * @description Filter by contact_id, status, flow_id or flow_enrollment_id to follow deliveries; bounded by sent_at. Returns the workspace's sent emails a page at a time, by default newest first on `sent_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `contact_id`, `owner_id`, `status`, `provider`, `flow_id`, `flow_enrollment_id`; bounds `sent_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `subject`, `to_email`, `from_email`. Requires scope `sent_emails:read`.
         */
        get: operations["listSentEmails"];
        put?: never;
        /**
         * Create a sent email
         * @description Queues one email to the contact's address: give subject and body (Liquid over the contact's fields), or a template_id. Poll the record (or list email_events) to follow it. Creates a sent email and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `sent_emails:write`.
         */
        post: operations["createSentEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sent_emails/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a sent email
         * @description Poll it to see a send go from queued to sent, bounced or failed. Returns one sent email by id; 404 if the workspace has none with that id. Requires scope `sent_emails:read`.
         */
        get: operations["getSentEmail"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/email_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List email events
         * @description Filter by sent_email_id, contact_id or event_type; bounded by occurred_at. Returns the workspace's email events a page at a time, by default newest first on `occurred_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `sent_email_id`, `contact_id`, `event_type`; bounds `occurred_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `email_events:read`.
         */
        get: operations["listEmailEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/email_events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get an email event
         * @description Use it to read one event. Returns one email event by id; 404 if the workspace has none with that id. Requires scope `email_events:read`.
         */
        get: operations["getEmailEvent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/touchpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List touchpoints
         * @description Filter by contact_id and channel for a contact's history on a channel; bounded by occurred_at. Returns the workspace's touchpoints a page at a time, by default newest first on `occurred_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `contact_id`, `owner_id`, `channel`, `direction`, `status`; bounds `occurred_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `summary`, `subject`. Requires scope `touchpoints:read`.
         */
        get: operations["listTouchpoints"];
        put?: never;
        /**
         * Create a touchpoint
         * @description Log an interaction that happened elsewhere (a chat message, a connection request, a call outside the dialer). Creates a touchpoint and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `touchpoints:write`.
         */
        post: operations["createTouchpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/touchpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a touchpoint
         * @description Use it to read one touchpoint. Returns one touchpoint by id; 404 if the workspace has none with that id. Requires scope `touchpoints:read`.
         */
        get: operations["getTouchpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/email_templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List email templates
         * @description Use it to pick a template by name (q searches name and subject). Returns the workspace's email templates a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `name`, `subject`. Requires scope `email_templates:read`.
         */
        get: operations["listEmailTemplates"];
        put?: never;
        /**
         * Create an email template
         * @description Saved only if subject and body parse and render within the limits against a sample contact (422 naming the field otherwise). Creates a email template and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `email_templates:write`.
         */
        post: operations["createEmailTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/email_templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get an email template
         * @description Use it to read a template's sources. Returns one email template by id; 404 if the workspace has none with that id. Requires scope `email_templates:read`.
         */
        get: operations["getEmailTemplate"];
        put?: never;
        post?: never;
        /**
         * Delete an email template
         * @description Emails already sent from it are not affected. Deletes a email template; 204 with no body, 404 if the workspace has none with that id. Requires scope `email_templates:delete`.
         */
        delete: operations["deleteEmailTemplate"];
        options?: never;
        head?: never;
        /**
         * Update an email template
         * @description Changes apply to emails queued after the change; sent emails keep what they rendered. Changes a email template by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `email_templates:write`.
         */
        patch: operations["updateEmailTemplate"];
        trace?: never;
    };
    "/v1/chatapp_templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List chatapp templates
         * @description Filter by channel. Returns the workspace's chatapp templates a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `channel`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `name`. Requires scope `chatapp_templates:read`.
         */
        get: operations["listChatappTemplates"];
        put?: never;
        /**
         * Create a chatapp template
         * @description Saved only if the body parses and renders within the limits. Creates a chatapp template and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `chatapp_templates:write`.
         */
        post: operations["createChatappTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chatapp_templates/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a chatapp template
         * @description Use it to read a template's source. Returns one chatapp template by id; 404 if the workspace has none with that id. Requires scope `chatapp_templates:read`.
         */
        get: operations["getChatappTemplate"];
        put?: never;
        post?: never;
        /**
         * Delete a chatapp template
         * @description Use it to remove a template no longer used. Deletes a chatapp template; 204 with no body, 404 if the workspace has none with that id. Requires scope `chatapp_templates:delete`.
         */
        delete: operations["deleteChatappTemplate"];
        options?: never;
        head?: never;
        /**
         * Update a chatapp template
         * @description Use it to change a message. Changes a chatapp template by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `chatapp_templates:write`.
         */
        patch: operations["updateChatappTemplate"];
        trace?: never;
    };
    "/v1/contacts/{id}/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A contact's timeline
         * @description What happened with the contact, newest first: emails sent, their events (opens, clicks, replies, bounces, unsubscribes), touchpoints logged by hand or automatic replies, calls, meetings booked, tasks created and completed. Use it to show a contact's history in one list instead of reading each resource. Requires scope `contacts:read`.
         */
        get: operations["getContactTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/performance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's performance
         * @description Counts for the user over the window ending now: emails sent, and of those replied, opened and clicked (each email once; opens and clicks flagged as automated are not counted), calls placed and their talk time, meetings booked, tasks completed. Use it for a rep's dashboard; the counts are kept by the hour, so they are cheap to read. Requires scope `users:read`.
         */
        get: operations["getUserPerformance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List flows
         * @description Filter by status or owner. Returns the workspace's flows a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `status`, `owner_id`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `name`, `description`. Requires scope `flows:read`.
         */
        get: operations["listFlows"];
        put?: never;
        /**
         * Create a flow
         * @description Give name, nodes and edges; the graph is checked as a whole (422 naming the node or edge). Create as draft, then PATCH status to active to start it. Creates a flow and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `flows:write`.
         */
        post: operations["createFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flows/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a flow
         * @description Returns the graph as nodes and edges; their analytics are at /v1/flows/{id}/analytics. Returns one flow by id; 404 if the workspace has none with that id. Requires scope `flows:read`.
         */
        get: operations["getFlow"];
        put?: never;
        post?: never;
        /**
         * Delete a flow
         * @description Removes the flow. To keep a flow's history and stop it for good, archive it (PATCH status) instead. Deletes a flow; 204 with no body, 404 if the workspace has none with that id. Requires scope `flows:delete`.
         */
        delete: operations["deleteFlow"];
        options?: never;
        head?: never;
        /**
         * Update a flow
         * @description Change status (activate, pause, archive) or replace the graph by sending nodes and edges together. Archiving exits every open enrollment (flow_archived). Changes a flow by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `flows:write`.
         */
        patch: operations["updateFlow"];
        trace?: never;
    };
    "/v1/flows/{id}/enrollments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enroll contacts, or every member of a pool, in a flow
         * @description Up to 500 `contact_ids`, or a `pool_id` (every member, however many). Contacts already in the flow (active or paused), unknown to the workspace, or whose address is suppressed (when the flow sends email) are listed, not enrolled. Into a flow in any status but archived (409). Use it to start a campaign for a list of contacts or a whole pool; enrollments in a flow that is not active wait until it is. Requires scope `flows:write`.
         */
        post: operations["enrollContacts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flows/{id}/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A flow's analytics
         * @description `enrollments` counts by status, `exits` counts by exit reason, `funnel` one item per node in graph order with the number of enrollments that reached it. Use it to watch a campaign: it is computed when asked, so poll it rather than list enrollments. Requires scope `flows:read`.
         */
        get: operations["getFlowAnalytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flow_nodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List flow nodes
         * @description Filter by flow_id for a flow's steps. Returns the workspace's flow nodes a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `flow_id`, `type`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes); `q` searches `label`. Requires scope `flow_nodes:read`.
         */
        get: operations["listFlowNodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flow_nodes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a flow node
         * @description Use it to read the node an enrollment's current_node_id names. Returns one flow node by id; 404 if the workspace has none with that id. Requires scope `flow_nodes:read`.
         */
        get: operations["getFlowNode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/enrollments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List enrollments
         * @description Filter by flow_id, contact_id or status; bounded by enrolled_at. Returns the workspace's enrollments a page at a time, by default newest first on `enrolled_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `flow_id`, `contact_id`, `status`; bounds `enrolled_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `flows:read`.
         */
        get: operations["listEnrollments"];
        put?: never;
        /**
         * Create an enrollment
         * @description Enrolls one contact; for many, or a whole pool, use POST /v1/flows/{id}/enrollments. A contact already active or paused in the flow is 409. Creates a enrollment and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Properties that are not fields are kept as custom fields. Requires scope `flows:write`.
         */
        post: operations["createEnrollment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/enrollments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get an enrollment
         * @description status and next_run_at say where it stands; its history is at /v1/enrollments/{id}/steps. Returns one enrollment by id; 404 if the workspace has none with that id. Requires scope `flows:read`.
         */
        get: operations["getEnrollment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an enrollment
         * @description PATCH status to paused, back to active, or to exited (manual exit). Changes a enrollment by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `flows:write`.
         */
        patch: operations["updateEnrollment"];
        trace?: never;
    };
    "/v1/enrollments/{id}/steps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An enrollment's history
         * @description What the engine did for the enrollment (node, outcome, the ids of the email or task it created, when), newest first. Use it to see why an enrollment is where it is, or why it failed. Requires scope `flows:read`.
         */
        get: operations["listEnrollmentSteps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flow_runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List flow runs
         * @description Filter by flow_id, status, exit_reason or enrolled_by, sort by completed_at: use it for a flow's run report. Returns the workspace's flow runs a page at a time, by default newest first on `started_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `flow_id`, `contact_id`, `status`, `exit_reason`, `enrolled_by`; bounds `started_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `flow_runs:read`.
         */
        get: operations["listFlowRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flow_runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a flow run
         * @description The same record as the enrollment with this id. Returns one flow run by id; 404 if the workspace has none with that id. Requires scope `flow_runs:read`.
         */
        get: operations["getFlowRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description Use it to review a workspace's endpoints; filter by enabled to find those the service disabled. Returns the workspace's webhook endpoints a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `svc_uid`, `enabled`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `webhooks:read`.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Create a webhook endpoint
         * @description Register an https URL; the answer carries the signing secret, shown this once. Creates a webhook endpoint and returns it (201) with the fields the server set. Send an `Idempotency-Key` to retry safely: the same key and body replay the first answer. Requires scope `webhooks:write`.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a webhook endpoint
         * @description Use it to read one endpoint (never its secret). Returns one webhook endpoint by id; 404 if the workspace has none with that id. Requires scope `webhooks:read`.
         */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Use it to stop deliveries to an endpoint for good; its pending deliveries are dropped. Deletes a webhook endpoint; 204 with no body, 404 if the workspace has none with that id. Requires scope `webhooks:delete`.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Update a webhook endpoint
         * @description Change the URL, the event types or the description, or set enabled back to true after fixing a receiver. Changes a webhook endpoint by merge patch: only the fields given change; null clears a nullable field (or removes a custom field). Returns the record as changed. Requires scope `webhooks:write`.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/rotate_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook endpoint's signing secret
         * @description Issues a new `secret` and answers the endpoint with it, this once. For 24 hours the previous secret signs too (two `v1,` entries in `webhook-signature`), so a receiver can switch without missing a delivery. No body. Requires scope `webhooks:write`.
         */
        post: operations["rotateWebhookEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook deliveries
         * @description Filter by endpoint_id and status=failed to find what a receiver missed. Returns the workspace's webhook deliveries a page at a time, by default newest first on `created_at`; follow `next_cursor` (with the same query) until it is null to read them all. Filters by equality on `endpoint_id`, `event_type`, `status`; bounds `created_at` with `since`/`until`, and `updated_at` with `updated_since` (use it to sync changes). Requires scope `webhooks:read`.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        /**
         * Get a webhook delivery
         * @description Use it to read one delivery and its last attempt. Returns one webhook delivery by id; 404 if the workspace has none with that id. Requires scope `webhooks:read`.
         */
        get: operations["getWebhookDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_deliveries/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a webhook delivery again now
         * @description Makes the delivery pending and due now, whatever its status; it is sent with the same `webhook-id`, so a receiver that already handled it can tell. Use it after fixing a receiver, for deliveries that failed. No body. Requires scope `webhooks:write`.
         */
        post: operations["retryWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/t/o/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Record an open (tracking pixel)
         * @description The 1×1 image at the end of a sent HTML email. Fetching it records an `open` email event for the send the token names (flagged `is_bot` when it looks automated) and answers the image. Public: no API key; the signed token is the credential. HEAD answers the same without recording.
         */
        get: operations["trackOpen"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/t/c/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Record a click and follow the link
         * @description Every link of a sent email is rewritten to this path. Fetching it records a `click` email event (with the target `url`) and redirects to the link. Public: no API key; the signed token is the credential.
         */
        get: operations["trackClick"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/u/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Unsubscribe confirmation page
         * @description The unsubscribe link of a sent email: a page asking to confirm, which changes nothing (link scanners fetch URLs). Public: no API key; the signed token is the credential.
         */
        get: operations["unsubscribePage"];
        put?: never;
        /**
         * Unsubscribe (RFC 8058 one-click)
         * @description The mail client's one-click unsubscribe (RFC 8058 `List-Unsubscribe-Post`) or the confirmation page's form: suppresses the address for the workspace, records an `unsubscribe` email event and exits its enrollments. Public: no API key; the signed token is the credential.
         */
        post: operations["unsubscribe"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Error: {
            /** @description What went wrong. */
            error: {
                /**
                 * @description A stable machine-readable code: branch on it, not on the message.
                 * @enum {string}
                 */
                code: "invalid_request" | "unauthorized" | "forbidden" | "not_found" | "method_not_allowed" | "request_timeout" | "conflict" | "payload_too_large" | "unsupported_media_type" | "validation_failed" | "idempotency_key_reused" | "rate_limited" | "send_quota_exhausted" | "internal" | "unavailable" | "timeout";
                /** @description A sentence for people, up to 1,000 characters; it may change. */
                message: string;
                /** @description More by code: `[{field, message}]` on 422 validation_failed, `{required_scope}` on 403, `{parameter}` on 400. */
                details?: unknown;
                /** @description The request id (also the X-Request-Id header): quote it when reporting a problem. */
                request_id: string;
                /**
                 * @description On 429: rate_limit_error.
                 * @enum {string}
                 */
                type?: "rate_limit_error";
            };
        };
        /** @description A person you reach out to. Extra properties are custom fields, stored and returned as given. */
        Contact: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description Given name, up to 255 characters. Not a list filter. */
            first_name: string | null;
            /** @description Family name, up to 255 characters. Not a list filter. */
            last_name: string | null;
            /**
             * Format: idn-email
             * @description Email address, unique in the workspace (409 on a second contact with it); the address flows send to. To find a contact by address, search with q. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            email: string | null;
            /** @description Phone number as written, up to 64 characters (no format is imposed; E.164 is best for dialers). Not a list filter. */
            phone: string | null;
            /** @description Job title. Not a list filter. */
            title: string | null;
            /** @description The company's name as given on the contact (free text; organization_id links a record). Not a list filter. */
            company_name: string | null;
            /** @description The company's web domain, e.g. example.com. List filter: `?company_domain=`. */
            company_domain: string | null;
            /** @description Your own pipeline stage, free text (e.g. lead, qualified, customer). List filter: `?internal_stage=`. */
            internal_stage: string | null;
            /**
             * Format: int32
             * @description Your ranking of the contact, 0 to 1000 (higher first when sorted descending). Not a list filter.
             */
            priority: number | null;
            /**
             * Format: uuid
             * @description The user (users resource) who owns the contact; flows send as the owner by default. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /**
             * Format: uuid
             * @description The organization (organizations resource) the contact belongs to. List filter: `?organization_id=`.
             */
            organization_id: string | null;
            /** @description Where the contact came from, free text (e.g. import, webinar, referral). List filter: `?source=`. */
            source: string | null;
            /** @description Country, free text (ISO 3166-1 alpha-2 such as GB is best). List filter: `?country=`. */
            country: string | null;
            /** @description State, region or county, free text. List filter: `?state=`. */
            state: string | null;
            /** @description City, free text. List filter: `?city=`. */
            city: string | null;
            /**
             * Format: date-time
             * @description When the contact last engaged (email sent, reply, call, meeting); set by the server from activity, never by clients. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly last_engagement_at: string | null;
            /**
             * Format: date-time
             * @description When the last touchpoint with the contact occurred; set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly last_touchpoint_at: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description At least one of email, first_name, last_name must be set. Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        ContactCreate: ({
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description Given name, up to 255 characters. Not a list filter. */
            first_name?: string | null;
            /** @description Family name, up to 255 characters. Not a list filter. */
            last_name?: string | null;
            /**
             * Format: idn-email
             * @description Email address, unique in the workspace (409 on a second contact with it); the address flows send to. To find a contact by address, search with q. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            email?: string | null;
            /** @description Phone number as written, up to 64 characters (no format is imposed; E.164 is best for dialers). Not a list filter. */
            phone?: string | null;
            /** @description Job title. Not a list filter. */
            title?: string | null;
            /** @description The company's name as given on the contact (free text; organization_id links a record). Not a list filter. */
            company_name?: string | null;
            /** @description The company's web domain, e.g. example.com. List filter: `?company_domain=`. */
            company_domain?: string | null;
            /** @description Your own pipeline stage, free text (e.g. lead, qualified, customer). List filter: `?internal_stage=`. */
            internal_stage?: string | null;
            /**
             * Format: int32
             * @description Your ranking of the contact, 0 to 1000 (higher first when sorted descending). Not a list filter.
             */
            priority?: number | null;
            /**
             * Format: uuid
             * @description The user (users resource) who owns the contact; flows send as the owner by default. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * Format: uuid
             * @description The organization (organizations resource) the contact belongs to. List filter: `?organization_id=`.
             */
            organization_id?: string | null;
            /** @description Where the contact came from, free text (e.g. import, webinar, referral). List filter: `?source=`. */
            source?: string | null;
            /** @description Country, free text (ISO 3166-1 alpha-2 such as GB is best). List filter: `?country=`. */
            country?: string | null;
            /** @description State, region or county, free text. List filter: `?state=`. */
            state?: string | null;
            /** @description City, free text. List filter: `?city=`. */
            city?: string | null;
        } & {
            [key: string]: unknown;
        }) | {
            /**
             * Format: idn-email
             * @description email, set and not empty.
             */
            email: string;
        } | {
            /** @description first_name, set and not empty. */
            first_name: string;
        } | {
            /** @description last_name, set and not empty. */
            last_name: string;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        ContactUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description Given name, up to 255 characters. Not a list filter. */
            first_name?: string | null;
            /** @description Family name, up to 255 characters. Not a list filter. */
            last_name?: string | null;
            /**
             * Format: idn-email
             * @description Email address, unique in the workspace (409 on a second contact with it); the address flows send to. To find a contact by address, search with q. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            email?: string | null;
            /** @description Phone number as written, up to 64 characters (no format is imposed; E.164 is best for dialers). Not a list filter. */
            phone?: string | null;
            /** @description Job title. Not a list filter. */
            title?: string | null;
            /** @description The company's name as given on the contact (free text; organization_id links a record). Not a list filter. */
            company_name?: string | null;
            /** @description The company's web domain, e.g. example.com. List filter: `?company_domain=`. */
            company_domain?: string | null;
            /** @description Your own pipeline stage, free text (e.g. lead, qualified, customer). List filter: `?internal_stage=`. */
            internal_stage?: string | null;
            /**
             * Format: int32
             * @description Your ranking of the contact, 0 to 1000 (higher first when sorted descending). Not a list filter.
             */
            priority?: number | null;
            /**
             * Format: uuid
             * @description The user (users resource) who owns the contact; flows send as the owner by default. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * Format: uuid
             * @description The organization (organizations resource) the contact belongs to. List filter: `?organization_id=`.
             */
            organization_id?: string | null;
            /** @description Where the contact came from, free text (e.g. import, webinar, referral). List filter: `?source=`. */
            source?: string | null;
            /** @description Country, free text (ISO 3166-1 alpha-2 such as GB is best). List filter: `?country=`. */
            country?: string | null;
            /** @description State, region or county, free text. List filter: `?state=`. */
            state?: string | null;
            /** @description City, free text. List filter: `?city=`. */
            city?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A company contacts belong to. Extra properties are custom fields, stored and returned as given. */
        Organization: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description The organization's name, up to 255 characters; required, never null. Not a list filter. */
            name: string | null;
            /** @description Web domain, e.g. example.com (not unique: subsidiaries may share one). List filter: `?domain=`. */
            domain: string | null;
            /** @description Website, an absolute URI. Not a list filter. */
            website_url: string | null;
            /** @description Industry, free text. List filter: `?industry=`. */
            industry: string | null;
            /** @description Country, free text (ISO 3166-1 alpha-2 such as GB is best). List filter: `?country=`. */
            country: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        OrganizationCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The organization's name, up to 255 characters; required, never null. Not a list filter. */
            name: string;
            /** @description Web domain, e.g. example.com (not unique: subsidiaries may share one). List filter: `?domain=`. */
            domain?: string | null;
            /** @description Website, an absolute URI. Not a list filter. */
            website_url?: string | null;
            /** @description Industry, free text. List filter: `?industry=`. */
            industry?: string | null;
            /** @description Country, free text (ISO 3166-1 alpha-2 such as GB is best). List filter: `?country=`. */
            country?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        OrganizationUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The organization's name, up to 255 characters; required, never null. Not a list filter. */
            name?: string;
            /** @description Web domain, e.g. example.com (not unique: subsidiaries may share one). List filter: `?domain=`. */
            domain?: string | null;
            /** @description Website, an absolute URI. Not a list filter. */
            website_url?: string | null;
            /** @description Industry, free text. List filter: `?industry=`. */
            industry?: string | null;
            /** @description Country, free text (ISO 3166-1 alpha-2 such as GB is best). List filter: `?country=`. */
            country?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A static group of contacts, to enroll in a flow at once. Extra properties are custom fields, stored and returned as given. */
        Pool: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description The pool's name, up to 255 characters. Not a list filter. */
            name: string | null;
            /** @description What the pool is for, free text up to 10,000 characters. */
            description: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who owns the pool. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /**
             * @description private (its owner only) or workspace (every user); private when omitted on create. List filter: `?visibility=`.
             * @enum {string}
             */
            visibility: "private" | "workspace";
            /**
             * Format: int32
             * @description Number of member contacts, kept exact by the server on every membership change. Not a list filter.
             */
            readonly contacts_count: number;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        PoolCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The pool's name, up to 255 characters. Not a list filter. */
            name: string;
            /** @description What the pool is for, free text up to 10,000 characters. */
            description?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who owns the pool. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * @description private (its owner only) or workspace (every user); private when omitted on create. List filter: `?visibility=`.
             * @enum {string}
             */
            visibility?: "private" | "workspace";
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        PoolUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The pool's name, up to 255 characters. Not a list filter. */
            name?: string;
            /** @description What the pool is for, free text up to 10,000 characters. */
            description?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who owns the pool. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * @description private (its owner only) or workspace (every user); private when omitted on create. List filter: `?visibility=`.
             * @enum {string}
             */
            visibility?: "private" | "workspace";
        } & {
            [key: string]: unknown;
        };
        /** @description One contact's membership of one pool. Extra properties are custom fields, stored and returned as given. */
        PoolContact: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The pool (pools resource); required on create. List filter: `?pool_id=`.
             */
            pool_id: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource); required on create, once per pool (409 if already a member). List filter: `?contact_id=`.
             */
            contact_id: string | null;
            /**
             * Format: uuid
             * @description The user behind the API key that added the contact, set by the server; null for keys without a user. List filter: `?added_by=`.
             */
            readonly added_by: string | null;
            /**
             * Format: date-time
             * @description When the contact was added to the pool (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly added_at: string;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        PoolContactCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The pool (pools resource); required on create. List filter: `?pool_id=`.
             */
            pool_id: string;
            /**
             * Format: uuid
             * @description The contact (contacts resource); required on create, once per pool (409 if already a member). List filter: `?contact_id=`.
             */
            contact_id: string;
        } & {
            [key: string]: unknown;
        };
        /** @description An operator's to-do, created over the API or by a flow's task and call steps. Extra properties are custom fields, stored and returned as given. */
        Task: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description The task's title, up to 255 characters; required. Not a list filter. */
            title: string;
            /** @description Details, free text up to 10,000 characters. */
            description: string | null;
            /**
             * @description open or completed; open when omitted. Completing sets completed_at, reopening clears it. List filter: `?status=`.
             * @enum {string}
             */
            status: "open" | "completed";
            /**
             * Format: int32
             * @description Ranking, 0 to 1000 (higher is more urgent). List filter: `?priority=`.
             */
            priority: number | null;
            /**
             * Format: date-time
             * @description When it is due (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            due_at: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who should do it. List filter: `?assignee_id=`.
             */
            assignee_id: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) it is about. List filter: `?contact_id=`.
             */
            contact_id: string | null;
            /**
             * Format: uuid
             * @description The organization (organizations resource) it is about. List filter: `?organization_id=`.
             */
            organization_id: string | null;
            /**
             * @description The channel of the work: email, call, chat_app, professional_network or other. List filter: `?type=`.
             * @enum {string|null}
             */
            type: "email" | "call" | "chat_app" | "professional_network" | "other" | null;
            /**
             * @description The channel suggested for the next step: email, call, chat_app, professional_network or other. List filter: `?suggested_action=`.
             * @enum {string|null}
             */
            suggested_action: "email" | "call" | "chat_app" | "professional_network" | "other" | null;
            /**
             * Format: uuid
             * @description The enrollment whose flow step created the task, set by the server; null for tasks created over the API. List filter: `?flow_enrollment_id=`.
             */
            readonly flow_enrollment_id: string | null;
            /**
             * Format: date-time
             * @description When the task was completed, set by the server; null while open. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly completed_at: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        TaskCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The task's title, up to 255 characters; required. Not a list filter. */
            title: string;
            /** @description Details, free text up to 10,000 characters. */
            description?: string | null;
            /**
             * @description open or completed; open when omitted. Completing sets completed_at, reopening clears it. List filter: `?status=`.
             * @enum {string}
             */
            status?: "open" | "completed";
            /**
             * Format: int32
             * @description Ranking, 0 to 1000 (higher is more urgent). List filter: `?priority=`.
             */
            priority?: number | null;
            /**
             * Format: date-time
             * @description When it is due (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            due_at?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who should do it. List filter: `?assignee_id=`.
             */
            assignee_id?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) it is about. List filter: `?contact_id=`.
             */
            contact_id?: string | null;
            /**
             * Format: uuid
             * @description The organization (organizations resource) it is about. List filter: `?organization_id=`.
             */
            organization_id?: string | null;
            /**
             * @description The channel of the work: email, call, chat_app, professional_network or other. List filter: `?type=`.
             * @enum {string|null}
             */
            type?: "email" | "call" | "chat_app" | "professional_network" | "other" | null;
            /**
             * @description The channel suggested for the next step: email, call, chat_app, professional_network or other. List filter: `?suggested_action=`.
             * @enum {string|null}
             */
            suggested_action?: "email" | "call" | "chat_app" | "professional_network" | "other" | null;
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        TaskUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The task's title, up to 255 characters; required. Not a list filter. */
            title?: string;
            /** @description Details, free text up to 10,000 characters. */
            description?: string | null;
            /**
             * @description open or completed; open when omitted. Completing sets completed_at, reopening clears it. List filter: `?status=`.
             * @enum {string}
             */
            status?: "open" | "completed";
            /**
             * Format: int32
             * @description Ranking, 0 to 1000 (higher is more urgent). List filter: `?priority=`.
             */
            priority?: number | null;
            /**
             * Format: date-time
             * @description When it is due (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            due_at?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who should do it. List filter: `?assignee_id=`.
             */
            assignee_id?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) it is about. List filter: `?contact_id=`.
             */
            contact_id?: string | null;
            /**
             * Format: uuid
             * @description The organization (organizations resource) it is about. List filter: `?organization_id=`.
             */
            organization_id?: string | null;
            /**
             * @description The channel of the work: email, call, chat_app, professional_network or other. List filter: `?type=`.
             * @enum {string|null}
             */
            type?: "email" | "call" | "chat_app" | "professional_network" | "other" | null;
            /**
             * @description The channel suggested for the next step: email, call, chat_app, professional_network or other. List filter: `?suggested_action=`.
             * @enum {string|null}
             */
            suggested_action?: "email" | "call" | "chat_app" | "professional_network" | "other" | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A call placed by hand or by a dialer; never changed once logged. Extra properties are custom fields, stored and returned as given. */
        CallLog: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) called. List filter: `?contact_id=`.
             */
            contact_id: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who placed the call. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /**
             * @description completed, missed or failed; required. List filter: `?status=`.
             * @enum {string}
             */
            status: "completed" | "missed" | "failed";
            /**
             * @description What came of it: connected, voicemail, no_answer, busy or wrong_number. List filter: `?outcome=`.
             * @enum {string|null}
             */
            outcome: "connected" | "voicemail" | "no_answer" | "busy" | "wrong_number" | null;
            /**
             * @description manual (dialled by hand) or dialer; manual when omitted, set by the server. List filter: `?mode=`.
             * @enum {string}
             */
            mode: "manual" | "dialer";
            /** @description Notes on the call, free text up to 10,000 characters. */
            notes: string | null;
            /**
             * Format: date-time
             * @description When the call started (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            started_at: string | null;
            /**
             * Format: date-time
             * @description When the call ended (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            ended_at: string | null;
            /**
             * Format: int32
             * @description Length in seconds, 0 or more; derived by the server from started_at and ended_at when both are given. Not a list filter.
             */
            duration_seconds: number | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        CallLogCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) called. List filter: `?contact_id=`.
             */
            contact_id?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who placed the call. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * @description completed, missed or failed; required. List filter: `?status=`.
             * @enum {string}
             */
            status: "completed" | "missed" | "failed";
            /**
             * @description What came of it: connected, voicemail, no_answer, busy or wrong_number. List filter: `?outcome=`.
             * @enum {string|null}
             */
            outcome?: "connected" | "voicemail" | "no_answer" | "busy" | "wrong_number" | null;
            /**
             * @description manual (dialled by hand) or dialer; manual when omitted, set by the server. List filter: `?mode=`.
             * @enum {string}
             */
            mode?: "manual" | "dialer";
            /** @description Notes on the call, free text up to 10,000 characters. */
            notes?: string | null;
            /**
             * Format: date-time
             * @description When the call started (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            started_at?: string | null;
            /**
             * Format: date-time
             * @description When the call ended (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            ended_at?: string | null;
            /**
             * Format: int32
             * @description Length in seconds, 0 or more; derived by the server from started_at and ended_at when both are given. Not a list filter.
             */
            duration_seconds?: number | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A calendar meeting with a contact. Extra properties are custom fields, stored and returned as given. */
        Meeting: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) met. List filter: `?contact_id=`.
             */
            contact_id: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who holds the meeting. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /**
             * @description scheduled, completed, canceled or no_show; scheduled when omitted, set by the server. List filter: `?status=`.
             * @enum {string}
             */
            status: "scheduled" | "completed" | "canceled" | "no_show";
            /**
             * @description What came of it: held, rescheduled, no_show, qualified or disqualified. List filter: `?outcome=`.
             * @enum {string|null}
             */
            outcome: "held" | "rescheduled" | "no_show" | "qualified" | "disqualified" | null;
            /** @description The meeting's title, up to 255 characters; required. Not a list filter. */
            title: string;
            /** @description Agenda or notes, free text up to 10,000 characters. */
            description: string | null;
            /** @description Where: an address or a call link, up to 1,000 characters. Not a list filter. */
            location: string | null;
            /**
             * Format: date-time
             * @description Start (RFC 3339); required. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            scheduled_start: string;
            /**
             * Format: date-time
             * @description End (RFC 3339), after scheduled_start; required. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            scheduled_end: string;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        MeetingCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) met. List filter: `?contact_id=`.
             */
            contact_id?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who holds the meeting. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * @description scheduled, completed, canceled or no_show; scheduled when omitted, set by the server. List filter: `?status=`.
             * @enum {string}
             */
            status?: "scheduled" | "completed" | "canceled" | "no_show";
            /**
             * @description What came of it: held, rescheduled, no_show, qualified or disqualified. List filter: `?outcome=`.
             * @enum {string|null}
             */
            outcome?: "held" | "rescheduled" | "no_show" | "qualified" | "disqualified" | null;
            /** @description The meeting's title, up to 255 characters; required. Not a list filter. */
            title: string;
            /** @description Agenda or notes, free text up to 10,000 characters. */
            description?: string | null;
            /** @description Where: an address or a call link, up to 1,000 characters. Not a list filter. */
            location?: string | null;
            /**
             * Format: date-time
             * @description Start (RFC 3339); required. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            scheduled_start: string;
            /**
             * Format: date-time
             * @description End (RFC 3339), after scheduled_start; required. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            scheduled_end: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        MeetingUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) met. List filter: `?contact_id=`.
             */
            contact_id?: string | null;
            /**
             * Format: uuid
             * @description The user (users resource) who holds the meeting. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * @description scheduled, completed, canceled or no_show; scheduled when omitted, set by the server. List filter: `?status=`.
             * @enum {string}
             */
            status?: "scheduled" | "completed" | "canceled" | "no_show";
            /**
             * @description What came of it: held, rescheduled, no_show, qualified or disqualified. List filter: `?outcome=`.
             * @enum {string|null}
             */
            outcome?: "held" | "rescheduled" | "no_show" | "qualified" | "disqualified" | null;
            /** @description The meeting's title, up to 255 characters; required. Not a list filter. */
            title?: string;
            /** @description Agenda or notes, free text up to 10,000 characters. */
            description?: string | null;
            /** @description Where: an address or a call link, up to 1,000 characters. Not a list filter. */
            location?: string | null;
            /**
             * Format: date-time
             * @description Start (RFC 3339); required. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            scheduled_start?: string;
            /**
             * Format: date-time
             * @description End (RFC 3339), after scheduled_start; required. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            scheduled_end?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A person who uses the CRM; created with crm admin and the settings pages, read-only over the API. */
        User: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description An external id of the user, set by whoever created the user; null when none. List filter: `?svc_uid=`. */
            readonly svc_uid: string | null;
            /**
             * Format: idn-email
             * @description The address the user signs in with and sends as, up to 254 characters. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            readonly email: string;
            /** @description Full name, up to 200 characters. Not a list filter. */
            readonly full_name: string;
            /**
             * @description owner, admin or member: what the user may do in the settings pages. List filter: `?role=`.
             * @enum {string}
             */
            readonly role: "owner" | "admin" | "member";
            /** @description false once the user is deactivated (their sessions end, their keys stop working). List filter: `?is_active=`. */
            readonly is_active: boolean;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A configured integration of the workspace (its own mail server); read-only over the API. */
        Integration: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description An external id of the integration, set by whoever configured it; null when none. List filter: `?svc_uid=`. */
            readonly svc_uid: string | null;
            /**
             * @description What the integration is: smtp (the workspace's own mail server). List filter: `?type=`.
             * @enum {string}
             */
            readonly type: "smtp";
            /** @description Its name as configured, up to 200 characters. Not a list filter. */
            readonly name: string;
            /**
             * @description checking until the first check answers, then connected or error (see status_reason); disconnected when turned off. List filter: `?status=`.
             * @enum {string}
             */
            readonly status: "connected" | "checking" | "error" | "disconnected";
            /** @description Why the last check failed, as the server or network said it (never the secret); null unless status is error. Not a list filter. */
            readonly status_reason: string | null;
            /** @description Whether messaging uses it. List filter: `?enabled=`. */
            readonly enabled: boolean;
            /** @description Non-secret settings of the integration, never its secret; for smtp: host, port, secure, username, from_email, from_name, verp. */
            readonly config: Record<string, unknown>;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description One email to one contact: queued over the API or by a flow, delivered by the worker. Extra properties are custom fields, stored and returned as given. */
        SentEmail: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) to send to; required. The email goes to their address. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * Format: uuid
             * @description The user (users resource) it is sent as; the contact's owner when omitted. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /**
             * Format: uuid
             * @description An email template (email_templates resource) to render subject and bodies from, instead of giving them. Not a list filter.
             */
            template_id: string | null;
            /**
             * @description queued, then sent, bounced or failed; set by the server (the delivery worker and inbound bounces). List filter: `?status=`.
             * @enum {string}
             */
            readonly status: "queued" | "sent" | "bounced" | "failed";
            /**
             * @description How it was delivered: smtp, or log (written to the log, not sent); set by the server, null while queued. List filter: `?provider=`.
             * @enum {string|null}
             */
            readonly provider: "smtp" | "log" | null;
            /** @description Subject, a Liquid source over the contact's fields and sender.* (rendered when queued), up to 998 characters; required unless template_id is given. Not a list filter. */
            subject: string;
            /** @description HTML body, a Liquid source (rendered when queued), up to 262,144 characters; required unless template_id is given. */
            body: string;
            /** @description Plain-text body, a Liquid source; derived from body when omitted. */
            body_text: string | null;
            /**
             * Format: idn-email
             * @description The contact's address when it was queued; set by the server. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            readonly to_email: string;
            /**
             * Format: idn-email
             * @description Sender address; defaults to the workspace's smtp integration's from_email, else the owner's address, else the server's MAIL_FROM. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            from_email: string;
            /** @description Sender display name. Not a list filter. */
            from_name: string | null;
            /** @description The RFC 5322 Message-ID header the email carries; set by the server. Not a list filter. */
            readonly message_id: string;
            /** @description Why it bounced or failed, set by the server; null otherwise. Not a list filter. */
            readonly failure_reason: string | null;
            /**
             * Format: int32
             * @description Delivery attempts so far, set by the server; null for sends finished before attempts were counted. Not a list filter.
             */
            readonly attempts: number | null;
            /** @description The last failed attempt's error (the server's answer or the connection error, naming the smtp integration), set by the server; null if none failed. */
            readonly last_error: string | null;
            /**
             * Format: date-time
             * @description While a retry waits, when it goes (RFC 3339); null otherwise. Set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly next_attempt_at: string | null;
            /**
             * Format: date-time
             * @description When the mail server accepted it (RFC 3339), set by the server; null until then. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly sent_at: string | null;
            /**
             * Format: uuid
             * @description The flow whose email step queued it, set by the server; null for emails sent over the API. List filter: `?flow_id=`.
             */
            readonly flow_id: string | null;
            /**
             * Format: uuid
             * @description The flow node (email step) that queued it, set by the server; null for emails sent over the API. Not a list filter.
             */
            readonly flow_node_id: string | null;
            /**
             * Format: uuid
             * @description The enrollment it was sent for, set by the server; null for emails sent over the API. List filter: `?flow_enrollment_id=`.
             */
            readonly flow_enrollment_id: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        SentEmailCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) to send to; required. The email goes to their address. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * Format: uuid
             * @description The user (users resource) it is sent as; the contact's owner when omitted. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * Format: uuid
             * @description An email template (email_templates resource) to render subject and bodies from, instead of giving them. Not a list filter.
             */
            template_id?: string | null;
            /** @description Subject, a Liquid source over the contact's fields and sender.* (rendered when queued), up to 998 characters; required unless template_id is given. Not a list filter. */
            subject?: string;
            /** @description HTML body, a Liquid source (rendered when queued), up to 262,144 characters; required unless template_id is given. */
            body?: string;
            /** @description Plain-text body, a Liquid source; derived from body when omitted. */
            body_text?: string | null;
            /**
             * Format: idn-email
             * @description Sender address; defaults to the workspace's smtp integration's from_email, else the owner's address, else the server's MAIL_FROM. RFC 5321 limits, counted in UTF-8 octets: a local part of at most 64, domain labels of at most 63 each, at most 254 in all. Not a list filter.
             */
            from_email?: string;
            /** @description Sender display name. Not a list filter. */
            from_name?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description What happened to a sent email: opens, clicks, replies, bounces, unsubscribes; recorded by the server. */
        EmailEvent: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The sent email (sent_emails resource) the event is about. List filter: `?sent_email_id=`.
             */
            readonly sent_email_id: string;
            /**
             * Format: uuid
             * @description The contact it was sent to. List filter: `?contact_id=`.
             */
            readonly contact_id: string;
            /**
             * @description open, click, reply, bounce or unsubscribe. List filter: `?event_type=`.
             * @enum {string}
             */
            readonly event_type: "open" | "click" | "reply" | "bounce" | "unsubscribe";
            /**
             * Format: date-time
             * @description When it happened (RFC 3339), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly occurred_at: string;
            /** @description true when an open or click looks automated (a link scanner, a prefetching proxy); such events are counted nowhere. Not a list filter. */
            readonly is_bot: boolean;
            /** @description A click's target link; null for other events. */
            readonly url: string | null;
            /** @description The User-Agent of an open or click, up to 1,000 characters; null for other events. Not a list filter. */
            readonly user_agent: string | null;
            /**
             * @description A bounce's kind: hard (the address is suppressed) or soft; null for other events. Not a list filter.
             * @enum {string|null}
             */
            readonly bounce_type: "hard" | "soft" | null;
            /** @description A bounce's enhanced status code (RFC 3463), e.g. 5.1.1; null for other events. Not a list filter. */
            readonly status_code: string | null;
            /** @description A bounce's diagnostic or a reply's summary; null when none. */
            readonly detail: string | null;
            /**
             * Format: uuid
             * @description The flow whose email it was; null for emails sent over the API. Not a list filter.
             */
            readonly flow_id: string | null;
            /**
             * Format: uuid
             * @description The flow node that sent the email; null for emails sent over the API. Not a list filter.
             */
            readonly flow_node_id: string | null;
            /**
             * Format: uuid
             * @description The enrollment the email was sent for; null for emails sent over the API. Not a list filter.
             */
            readonly flow_enrollment_id: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description One interaction with a contact on any channel: logged by hand or written by the server for emails, replies, calls and meetings. Extra properties are custom fields, stored and returned as given. */
        Touchpoint: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) it was with; required. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * Format: uuid
             * @description The user (users resource) on your side. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /**
             * @description email, chat_app, call or professional_network; required. List filter: `?channel=`.
             * @enum {string}
             */
            channel: "email" | "chat_app" | "call" | "professional_network";
            /**
             * @description inbound (from the contact) or outbound (to them); required. List filter: `?direction=`.
             * @enum {string}
             */
            direction: "inbound" | "outbound";
            /**
             * @description completed or failed; completed when omitted. List filter: `?status=`.
             * @enum {string}
             */
            status: "completed" | "failed";
            /** @description What was said, free text up to 10,000 characters. */
            summary: string | null;
            /** @description Subject or topic, up to 255 characters. Not a list filter. */
            subject: string | null;
            /**
             * Format: date-time
             * @description When it happened (RFC 3339); the time it was logged when omitted. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            occurred_at: string;
            /**
             * @description What recorded it, set by the server: manual (logged over the API), sent_email, email_event, inbound_email, call_log or meeting. Not a list filter.
             * @enum {string}
             */
            readonly source: "manual" | "sent_email" | "email_event" | "inbound_email" | "call_log" | "meeting";
            /**
             * Format: uuid
             * @description The record it was written for (the sent email, event, call log or meeting), set by the server; null when logged by hand. Not a list filter.
             */
            readonly source_id: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        TouchpointCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The contact (contacts resource) it was with; required. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * Format: uuid
             * @description The user (users resource) on your side. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /**
             * @description email, chat_app, call or professional_network; required. List filter: `?channel=`.
             * @enum {string}
             */
            channel: "email" | "chat_app" | "call" | "professional_network";
            /**
             * @description inbound (from the contact) or outbound (to them); required. List filter: `?direction=`.
             * @enum {string}
             */
            direction: "inbound" | "outbound";
            /**
             * @description completed or failed; completed when omitted. List filter: `?status=`.
             * @enum {string}
             */
            status?: "completed" | "failed";
            /** @description What was said, free text up to 10,000 characters. */
            summary?: string | null;
            /** @description Subject or topic, up to 255 characters. Not a list filter. */
            subject?: string | null;
            /**
             * Format: date-time
             * @description When it happened (RFC 3339); the time it was logged when omitted. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            occurred_at?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description A reusable email: Liquid subject and bodies, checked when saved. Extra properties are custom fields, stored and returned as given. */
        EmailTemplate: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description The template's name, up to 255 characters; required. Not a list filter. */
            name: string;
            /** @description What the template is for, free text. */
            description: string | null;
            /** @description Subject, a Liquid source over the contact's fields and sender.*, up to 998 characters; required. Checked when saved (422 if it does not parse). Not a list filter. */
            subject: string;
            /** @description HTML body, a Liquid source up to 262,144 characters; required. Checked when saved. */
            body: string;
            /** @description Plain-text body, a Liquid source; derived from body when omitted. */
            body_text: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        EmailTemplateCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The template's name, up to 255 characters; required. Not a list filter. */
            name: string;
            /** @description What the template is for, free text. */
            description?: string | null;
            /** @description Subject, a Liquid source over the contact's fields and sender.*, up to 998 characters; required. Checked when saved (422 if it does not parse). Not a list filter. */
            subject: string;
            /** @description HTML body, a Liquid source up to 262,144 characters; required. Checked when saved. */
            body: string;
            /** @description Plain-text body, a Liquid source; derived from body when omitted. */
            body_text?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        EmailTemplateUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The template's name, up to 255 characters; required. Not a list filter. */
            name?: string;
            /** @description What the template is for, free text. */
            description?: string | null;
            /** @description Subject, a Liquid source over the contact's fields and sender.*, up to 998 characters; required. Checked when saved (422 if it does not parse). Not a list filter. */
            subject?: string;
            /** @description HTML body, a Liquid source up to 262,144 characters; required. Checked when saved. */
            body?: string;
            /** @description Plain-text body, a Liquid source; derived from body when omitted. */
            body_text?: string | null;
        } & {
            [key: string]: unknown;
        };
        /** @description A reusable chat-app or professional-network message in Liquid, checked when saved. Extra properties are custom fields, stored and returned as given. */
        ChatappTemplate: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description The template's name, up to 255 characters; required. Not a list filter. */
            name: string;
            /** @description What the template is for, free text. */
            description: string | null;
            /**
             * @description chat_app or professional_network; chat_app when omitted. List filter: `?channel=`.
             * @enum {string}
             */
            channel: "chat_app" | "professional_network";
            /** @description The message, a Liquid source over the contact's fields and sender.*, up to 10,000 characters; required. */
            body: string;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        ChatappTemplateCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The template's name, up to 255 characters; required. Not a list filter. */
            name: string;
            /** @description What the template is for, free text. */
            description?: string | null;
            /**
             * @description chat_app or professional_network; chat_app when omitted. List filter: `?channel=`.
             * @enum {string}
             */
            channel?: "chat_app" | "professional_network";
            /** @description The message, a Liquid source over the contact's fields and sender.*, up to 10,000 characters; required. */
            body: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        ChatappTemplateUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The template's name, up to 255 characters; required. Not a list filter. */
            name?: string;
            /** @description What the template is for, free text. */
            description?: string | null;
            /**
             * @description chat_app or professional_network; chat_app when omitted. List filter: `?channel=`.
             * @enum {string}
             */
            channel?: "chat_app" | "professional_network";
            /** @description The message, a Liquid source over the contact's fields and sender.*, up to 10,000 characters; required. */
            body?: string;
        } & {
            [key: string]: unknown;
        };
        /** @description An outreach sequence: a graph of steps (email, wait, task, call, branch, end) that enrolled contacts are worked through. Extra properties are custom fields, stored and returned as given. */
        Flow: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description The flow's name, up to 255 characters; required. Not a list filter. */
            name: string;
            /** @description What the flow is for, free text up to 10,000 characters. */
            description: string | null;
            /**
             * @description draft, active, paused or archived; draft when omitted. draft → active ⇄ paused, any → archived (final). Only enrollments of active flows advance. List filter: `?status=`.
             * @enum {string}
             */
            status: "draft" | "active" | "paused" | "archived";
            /**
             * Format: uuid
             * @description The user (users resource) who owns the flow; its emails are sent as the enrolled contact's owner. List filter: `?owner_id=`.
             */
            owner_id: string | null;
            /** @description When email and task steps may run; null for any time. Email and task steps due outside it move to its next opening (DST-aware). */
            schedule: {
                /** @description IANA zone, e.g. Europe/Berlin. */
                timezone: string;
                /** @description The days steps may run on. */
                days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
                /** @description Opening time, HH:MM in the timezone. */
                start: string;
                /** @description Closing time, HH:MM in the timezone (24:00 for midnight). */
                end: string;
            } | null;
            /** @description The steps of the graph, 1 to 100, each with a key unique in the flow; required on create, and a PATCH with nodes (and edges) replaces the graph. */
            nodes: {
                /**
                 * Format: uuid
                 * @description The node's id, set by the server.
                 */
                readonly id?: string;
                /** @description Unique in the flow; edges name nodes by it. */
                key: string;
                /**
                 * @description What the step does.
                 * @enum {string}
                 */
                type: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end";
                /** @description A label for people, up to 255 characters. */
                label?: string | null;
                /** @description Per type: see the flow graph decisions in the API documentation. */
                config?: Record<string, unknown> | null;
            }[];
            /** @description The transitions between nodes by key, up to 200; the two edges out of a branch carry when: true and false. */
            edges: {
                /** @description A node key. */
                from: string;
                /** @description A node key. */
                to: string;
                /** @description true or false on the two edges out of a branch. */
                when?: boolean | null;
            }[];
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        FlowCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The flow's name, up to 255 characters; required. Not a list filter. */
            name: string;
            /** @description What the flow is for, free text up to 10,000 characters. */
            description?: string | null;
            /**
             * @description draft, active, paused or archived; draft when omitted. draft → active ⇄ paused, any → archived (final). Only enrollments of active flows advance. List filter: `?status=`.
             * @enum {string}
             */
            status?: "draft" | "active" | "paused" | "archived";
            /**
             * Format: uuid
             * @description The user (users resource) who owns the flow; its emails are sent as the enrolled contact's owner. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /** @description When email and task steps may run; null for any time. Email and task steps due outside it move to its next opening (DST-aware). */
            schedule?: {
                /** @description IANA zone, e.g. Europe/Berlin. */
                timezone: string;
                /** @description The days steps may run on. */
                days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
                /** @description Opening time, HH:MM in the timezone. */
                start: string;
                /** @description Closing time, HH:MM in the timezone (24:00 for midnight). */
                end: string;
            } | null;
            /** @description The steps of the graph, 1 to 100, each with a key unique in the flow; required on create, and a PATCH with nodes (and edges) replaces the graph. */
            nodes?: {
                /**
                 * Format: uuid
                 * @description The node's id, set by the server.
                 */
                readonly id?: string;
                /** @description Unique in the flow; edges name nodes by it. */
                key: string;
                /**
                 * @description What the step does.
                 * @enum {string}
                 */
                type: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end";
                /** @description A label for people, up to 255 characters. */
                label?: string | null;
                /** @description Per type: see the flow graph decisions in the API documentation. */
                config?: Record<string, unknown> | null;
            }[];
            /** @description The transitions between nodes by key, up to 200; the two edges out of a branch carry when: true and false. */
            edges?: {
                /** @description A node key. */
                from: string;
                /** @description A node key. */
                to: string;
                /** @description true or false on the two edges out of a branch. */
                when?: boolean | null;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        FlowUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description The flow's name, up to 255 characters; required. Not a list filter. */
            name?: string;
            /** @description What the flow is for, free text up to 10,000 characters. */
            description?: string | null;
            /**
             * @description draft, active, paused or archived; draft when omitted. draft → active ⇄ paused, any → archived (final). Only enrollments of active flows advance. List filter: `?status=`.
             * @enum {string}
             */
            status?: "draft" | "active" | "paused" | "archived";
            /**
             * Format: uuid
             * @description The user (users resource) who owns the flow; its emails are sent as the enrolled contact's owner. List filter: `?owner_id=`.
             */
            owner_id?: string | null;
            /** @description When email and task steps may run; null for any time. Email and task steps due outside it move to its next opening (DST-aware). */
            schedule?: {
                /** @description IANA zone, e.g. Europe/Berlin. */
                timezone: string;
                /** @description The days steps may run on. */
                days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
                /** @description Opening time, HH:MM in the timezone. */
                start: string;
                /** @description Closing time, HH:MM in the timezone (24:00 for midnight). */
                end: string;
            } | null;
            /** @description The steps of the graph, 1 to 100, each with a key unique in the flow; required on create, and a PATCH with nodes (and edges) replaces the graph. */
            nodes?: {
                /**
                 * Format: uuid
                 * @description The node's id, set by the server.
                 */
                readonly id?: string;
                /** @description Unique in the flow; edges name nodes by it. */
                key: string;
                /**
                 * @description What the step does.
                 * @enum {string}
                 */
                type: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end";
                /** @description A label for people, up to 255 characters. */
                label?: string | null;
                /** @description Per type: see the flow graph decisions in the API documentation. */
                config?: Record<string, unknown> | null;
            }[];
            /** @description The transitions between nodes by key, up to 200; the two edges out of a branch carry when: true and false. */
            edges?: {
                /** @description A node key. */
                from: string;
                /** @description A node key. */
                to: string;
                /** @description true or false on the two edges out of a branch. */
                when?: boolean | null;
            }[];
        } & {
            [key: string]: unknown;
        };
        /** @description One step of a flow's graph, as stored; read-only (change the graph through its flow). */
        FlowNode: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The flow the node belongs to. List filter: `?flow_id=`.
             */
            readonly flow_id: string;
            /** @description The node's key, unique in its flow (1 to 64 of A-Z a-z 0-9 _ -). Not a list filter. */
            readonly key: string;
            /**
             * @description email, wait, task, call, chat_message, professional_network, branch or end. List filter: `?type=`.
             * @enum {string}
             */
            readonly type: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end";
            /** @description A label for people, up to 255 characters; null when none. Not a list filter. */
            readonly label: string | null;
            /** @description The step's settings by type (an email's subject and body, a wait's duration_seconds, a branch's condition). */
            readonly config: Record<string, unknown>;
            /**
             * Format: int32
             * @description The node's place in the graph's order, 0 to 1000. Not a list filter.
             */
            readonly position: number;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description One contact worked through one flow. Extra properties are custom fields, stored and returned as given. */
        Enrollment: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The flow (flows resource); required on create. List filter: `?flow_id=`.
             */
            flow_id: string;
            /**
             * Format: uuid
             * @description The contact (contacts resource) enrolled; required on create. One active or paused enrollment per contact and flow. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * @description active, paused, completed, exited or failed. A PATCH may move it to paused, back to active, or to exited (manual); completed, exited and failed are final. List filter: `?status=`.
             * @enum {string}
             */
            status: "active" | "paused" | "completed" | "exited" | "failed";
            /**
             * @description Why it exited: replied, bounced, unsubscribed, meeting_booked, contact_deleted, flow_archived or manual; set by the server, null unless exited. Filter on it with /v1/flow_runs. Not a list filter.
             * @enum {string|null}
             */
            readonly exit_reason: "replied" | "bounced" | "unsubscribed" | "meeting_booked" | "contact_deleted" | "flow_archived" | "manual" | null;
            /** @description Why it failed, set by the server; null unless failed. Not a list filter. */
            readonly failure_reason: string | null;
            /**
             * Format: uuid
             * @description The node (flow_nodes) the enrollment is at, set by the server; null once finished. Not a list filter.
             */
            readonly current_node_id: string | null;
            /**
             * Format: date-time
             * @description When the engine next works on it (RFC 3339), set by the server; null when nothing is due. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly next_run_at: string | null;
            /**
             * Format: uuid
             * @description The user behind the API key that enrolled the contact, set by the server; null for keys without a user. Filter on it with /v1/flow_runs. Not a list filter.
             */
            readonly enrolled_by: string | null;
            /**
             * Format: date-time
             * @description When the contact was enrolled (RFC 3339), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly enrolled_at: string;
            /**
             * Format: date-time
             * @description When the run started: the same as enrolled_at; set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly started_at: string;
            /**
             * Format: date-time
             * @description When the enrollment finished (completed, exited or failed), set by the server; null until then. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly completed_at: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        EnrollmentCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The flow (flows resource); required on create. List filter: `?flow_id=`.
             */
            flow_id: string;
            /**
             * Format: uuid
             * @description The contact (contacts resource) enrolled; required on create. One active or paused enrollment per contact and flow. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * @description active, paused, completed, exited or failed. A PATCH may move it to paused, back to active, or to exited (manual); completed, exited and failed are final. List filter: `?status=`.
             * @enum {string}
             */
            status?: "active" | "paused" | "completed" | "exited" | "failed";
        } & {
            [key: string]: unknown;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). Other properties are custom fields (names of 1 to 100 characters; at most 100 per request, 32768 bytes of JSON in all, nested at most 8 deep); null removes one on update. */
        EnrollmentUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /**
             * Format: uuid
             * @description The flow (flows resource); required on create. List filter: `?flow_id=`.
             */
            flow_id?: string;
            /**
             * Format: uuid
             * @description The contact (contacts resource) enrolled; required on create. One active or paused enrollment per contact and flow. List filter: `?contact_id=`.
             */
            contact_id?: string;
            /**
             * @description active, paused, completed, exited or failed. A PATCH may move it to paused, back to active, or to exited (manual); completed, exited and failed are final. List filter: `?status=`.
             * @enum {string}
             */
            status?: "active" | "paused" | "completed" | "exited" | "failed";
        } & {
            [key: string]: unknown;
        };
        /** @description One thing the engine did for an enrollment: the node, the outcome, the email or task it created. */
        EnrollmentStep: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The enrollment the step belongs to (the path's id). List filter: `?enrollment_id=`.
             */
            readonly enrollment_id: string;
            /**
             * Format: uuid
             * @description The enrollment's flow. Not a list filter.
             */
            readonly flow_id: string;
            /**
             * Format: uuid
             * @description The node the engine worked on; null for steps about the whole enrollment. Not a list filter.
             */
            readonly node_id: string | null;
            /** @description That node's key. Not a list filter. */
            readonly node_key: string | null;
            /**
             * @description That node's type. Not a list filter.
             * @enum {string|null}
             */
            readonly node_type: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end" | null;
            /**
             * Format: int32
             * @description How many times the enrollment had reached that node, counting this one (loops revisit). Not a list filter.
             */
            readonly visit: number;
            /**
             * @description What the engine did: email_queued, waited, task_created, task_completed, branch_true, branch_false, completed, exited, failed, rescheduled, paused or resumed. Not a list filter.
             * @enum {string}
             */
            readonly outcome: "email_queued" | "waited" | "task_created" | "task_completed" | "branch_true" | "branch_false" | "completed" | "exited" | "failed" | "rescheduled" | "paused" | "resumed";
            /** @description More about the outcome, up to 1,000 characters; null when none. Not a list filter. */
            readonly detail: string | null;
            /**
             * Format: uuid
             * @description The sent email (sent_emails resource) an email step queued; null otherwise. Not a list filter.
             */
            readonly sent_email_id: string | null;
            /**
             * Format: uuid
             * @description The task (tasks resource) a task or call step created; null otherwise. Not a list filter.
             */
            readonly task_id: string | null;
            /**
             * Format: date-time
             * @description When the engine did it (RFC 3339). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly occurred_at: string;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description An enrollment seen as a run of its flow, with the run's own filters and sorts. Extra properties are custom fields, stored and returned as given. */
        FlowRun: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /**
             * Format: uuid
             * @description The flow (flows resource); required on create. List filter: `?flow_id=`.
             */
            flow_id: string;
            /**
             * Format: uuid
             * @description The contact (contacts resource) enrolled; required on create. One active or paused enrollment per contact and flow. List filter: `?contact_id=`.
             */
            contact_id: string;
            /**
             * @description active, paused, completed, exited or failed. A PATCH may move it to paused, back to active, or to exited (manual); completed, exited and failed are final. List filter: `?status=`.
             * @enum {string}
             */
            status: "active" | "paused" | "completed" | "exited" | "failed";
            /**
             * @description Why it exited: replied, bounced, unsubscribed, meeting_booked, contact_deleted, flow_archived or manual; set by the server, null unless exited. List filter: `?exit_reason=`.
             * @enum {string|null}
             */
            readonly exit_reason: "replied" | "bounced" | "unsubscribed" | "meeting_booked" | "contact_deleted" | "flow_archived" | "manual" | null;
            /** @description Why it failed, set by the server; null unless failed. Not a list filter. */
            readonly failure_reason: string | null;
            /**
             * Format: uuid
             * @description The node (flow_nodes) the enrollment is at, set by the server; null once finished. Not a list filter.
             */
            readonly current_node_id: string | null;
            /**
             * Format: date-time
             * @description When the engine next works on it (RFC 3339), set by the server; null when nothing is due. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly next_run_at: string | null;
            /**
             * Format: uuid
             * @description The user behind the API key that enrolled the contact, set by the server; null for keys without a user. List filter: `?enrolled_by=`.
             */
            readonly enrolled_by: string | null;
            /**
             * Format: date-time
             * @description When the contact was enrolled (RFC 3339), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly enrolled_at: string;
            /**
             * Format: date-time
             * @description When the run started: the same as enrolled_at; set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly started_at: string;
            /**
             * Format: date-time
             * @description When the enrollment finished (completed, exited or failed), set by the server; null until then. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly completed_at: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description An HTTPS address that receives signed notifications of the events it subscribes to. */
        WebhookEndpoint: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid: string | null;
            /** @description Where events are POSTed: an https URL whose host resolves to a public address; required. Not a list filter. */
            url: string;
            /** @description What the endpoint is for, up to 1,000 characters. Not a list filter. */
            description: string | null;
            /** @description The event types delivered, an array of names; empty (the default) means every type. One of: contact.created, contact.updated, contact.deleted, organization.created, organization.updated, organization.deleted, sent_email.sent, sent_email.bounced, sent_email.failed, email_event.created, touchpoint.created, enrollment.created, enrollment.completed, enrollment.exited, enrollment.failed, task.created, task.completed, call_log.created, meeting.created, meeting.updated. */
            event_types: ("contact.created" | "contact.updated" | "contact.deleted" | "organization.created" | "organization.updated" | "organization.deleted" | "sent_email.sent" | "sent_email.bounced" | "sent_email.failed" | "email_event.created" | "touchpoint.created" | "enrollment.created" | "enrollment.completed" | "enrollment.exited" | "enrollment.failed" | "task.created" | "task.completed" | "call_log.created" | "meeting.created" | "meeting.updated")[];
            /** @description Whether events are delivered; true when omitted. The service sets it to false when every delivery has failed for 5 days. List filter: `?enabled=`. */
            enabled: boolean;
            /** @description Why the service disabled the endpoint, set by the server; null while enabled or when disabled by hand. Not a list filter. */
            readonly disabled_reason: string | null;
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
        /** @description The webhook endpoint as its create answers it: the record and `secret`, which no read returns. */
        WebhookEndpointCreated: components["schemas"]["WebhookEndpoint"] & {
            /** @description The signing secret (whsec_ followed by base64), shown only in the answers of create and rotate_secret: keep it to verify signatures. No read returns it. */
            readonly secret: string;
        };
        WebhookEndpointCreate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description Where events are POSTed: an https URL whose host resolves to a public address; required. Not a list filter. */
            url: string;
            /** @description What the endpoint is for, up to 1,000 characters. Not a list filter. */
            description?: string | null;
            /** @description The event types delivered, an array of names; empty (the default) means every type. One of: contact.created, contact.updated, contact.deleted, organization.created, organization.updated, organization.deleted, sent_email.sent, sent_email.bounced, sent_email.failed, email_event.created, touchpoint.created, enrollment.created, enrollment.completed, enrollment.exited, enrollment.failed, task.created, task.completed, call_log.created, meeting.created, meeting.updated. */
            event_types?: ("contact.created" | "contact.updated" | "contact.deleted" | "organization.created" | "organization.updated" | "organization.deleted" | "sent_email.sent" | "sent_email.bounced" | "sent_email.failed" | "email_event.created" | "touchpoint.created" | "enrollment.created" | "enrollment.completed" | "enrollment.exited" | "enrollment.failed" | "task.created" | "task.completed" | "call_log.created" | "meeting.created" | "meeting.updated")[];
            /** @description Whether events are delivered; true when omitted. The service sets it to false when every delivery has failed for 5 days. List filter: `?enabled=`. */
            enabled?: boolean;
        };
        /** @description Merge patch: given fields are set, null clears a nullable field (or removes a custom field). */
        WebhookEndpointUpdate: {
            /** @description Your own id for the record (up to 255 characters), unique per resource in the workspace; use it to find a record by your system's key. List filter: `?svc_uid=`. */
            svc_uid?: string | null;
            /** @description Where events are POSTed: an https URL whose host resolves to a public address; required. Not a list filter. */
            url?: string;
            /** @description What the endpoint is for, up to 1,000 characters. Not a list filter. */
            description?: string | null;
            /** @description The event types delivered, an array of names; empty (the default) means every type. One of: contact.created, contact.updated, contact.deleted, organization.created, organization.updated, organization.deleted, sent_email.sent, sent_email.bounced, sent_email.failed, email_event.created, touchpoint.created, enrollment.created, enrollment.completed, enrollment.exited, enrollment.failed, task.created, task.completed, call_log.created, meeting.created, meeting.updated. */
            event_types?: ("contact.created" | "contact.updated" | "contact.deleted" | "organization.created" | "organization.updated" | "organization.deleted" | "sent_email.sent" | "sent_email.bounced" | "sent_email.failed" | "email_event.created" | "touchpoint.created" | "enrollment.created" | "enrollment.completed" | "enrollment.exited" | "enrollment.failed" | "task.created" | "task.completed" | "call_log.created" | "meeting.created" | "meeting.updated")[];
            /** @description Whether events are delivered; true when omitted. The service sets it to false when every delivery has failed for 5 days. List filter: `?enabled=`. */
            enabled?: boolean;
        };
        /** @description One event sent, or being sent, to one webhook endpoint, with the outcome of its last attempt and of each recent one. */
        WebhookDelivery: {
            /**
             * Format: uuid
             * @description The record id (UUID), set by the server on create.
             */
            readonly id: string;
            /** @description Always null: deliveries are created by the service, never given a client id. Not a list filter. */
            readonly svc_uid: string | null;
            /**
             * Format: uuid
             * @description The endpoint (webhook_endpoints resource) it is sent to. List filter: `?endpoint_id=`.
             */
            readonly endpoint_id: string;
            /**
             * Format: uuid
             * @description The event's id, sent as the webhook-id header on every attempt. Not a list filter.
             */
            readonly event_id: string;
            /** @description The public event type, such as contact.created. List filter: `?event_type=`. */
            readonly event_type: string;
            /** @description The body sent: {type, timestamp, data}, data being the record as the API returned it when the event was consumed; for a deleted record (a *.deleted event, or one deleted meanwhile) {id, svc_uid?, deleted: true}. */
            readonly payload: Record<string, unknown>;
            /**
             * @description pending (to be sent or retried), succeeded (a 2xx answer) or failed (every retry spent). List filter: `?status=`.
             * @enum {string}
             */
            readonly status: "pending" | "succeeded" | "failed";
            /**
             * Format: int32
             * @description How many times it was sent. Not a list filter.
             */
            readonly attempts: number;
            /**
             * Format: date-time
             * @description When it is sent next (RFC 3339); null once succeeded or failed. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly next_attempt_at: string | null;
            /**
             * Format: date-time
             * @description When it was last sent (RFC 3339); null before the first attempt. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly last_attempt_at: string | null;
            /**
             * Format: int32
             * @description The HTTP status of the last attempt's answer; null when none came (timeout, refused connection). Not a list filter.
             */
            readonly last_status_code: number | null;
            /** @description Why the last attempt failed, in a few words; null after a success. Not a list filter. */
            readonly last_error: string | null;
            /**
             * Format: int32
             * @description How long the last attempt took, in milliseconds. Not a list filter.
             */
            readonly last_duration_ms: number | null;
            /** @description Each attempt, oldest first: its number (attempt), when it was sent (at, RFC 3339), the HTTP status of the answer (status_code; null when none came), how long it took (duration_ms) and why it failed (error; null after a success). Only the most recent 20 are kept; empty before the first attempt. */
            readonly attempt_log: {
                /**
                 * Format: int32
                 * @description Which attempt it was, from 1; attempts counts them all.
                 */
                attempt: number;
                /**
                 * Format: date-time
                 * @description When it was sent (RFC 3339 in UTC, with milliseconds).
                 */
                at: string;
                /**
                 * Format: int32
                 * @description The HTTP status of the answer; null when none came (timeout, refused connection).
                 */
                status_code: number | null;
                /**
                 * Format: int32
                 * @description How long it took, in milliseconds.
                 */
                duration_ms: number;
                /** @description Why it failed, in a few words; null for a success. */
                error: string | null;
            }[];
            /**
             * Format: date-time
             * @description When the record was created (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly created_at: string;
            /**
             * Format: date-time
             * @description When the record last changed (RFC 3339, UTC), set by the server. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
             */
            readonly updated_at: string;
        } & {
            [key: string]: unknown;
        };
    };
    responses: {
        /** @description Malformed request: bad JSON, bad or unknown query parameter, bad cursor, non-UUID id. Codes: invalid_request. */
        BadRequest: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description API key missing, malformed, unknown or revoked. Codes: unauthorized. */
        Unauthorized: {
            headers: {
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The key lacks the scope; `details.required_scope` names it. Codes: forbidden. */
        Forbidden: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No such record in this workspace. Codes: not_found. */
        NotFound: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Uniqueness violation or illegal state transition. Codes: conflict. */
        Conflict: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Body over 1 MiB. Codes: payload_too_large. */
        PayloadTooLarge: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Body is not application/json. Codes: unsupported_media_type. */
        UnsupportedMediaType: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Body failed validation; `details` lists `{field, message}`. Codes: validation_failed, idempotency_key_reused. */
        ValidationFailed: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Per-key or per-workspace rate limit; wait `Retry-After` seconds. Codes: rate_limited. */
        RateLimited: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Unexpected error; safe to retry with an Idempotency-Key. Codes: internal. */
        Internal: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A backing service is down; retry after `Retry-After` seconds. Codes: unavailable. */
        Unavailable: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                /** @description Seconds to wait. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A backing service missed its deadline. Codes: timeout. */
        Timeout: {
            headers: {
                /** @description Per-key budget per minute. */
                "RateLimit-Limit"?: number;
                /** @description Requests left in the binding window. */
                "RateLimit-Remaining"?: number;
                /** @description Seconds until the binding window is fully open again. */
                "RateLimit-Reset"?: number;
                /** @description The request id, also in every error body. */
                "X-Request-Id"?: string;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        Id: string;
        /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listContacts: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: first_name, last_name, company_name, internal_stage, priority, last_engagement_at, last_touchpoint_at, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over first_name, last_name, email, company_name (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on company_domain. */
                company_domain?: string;
                /** @description Equality filter on internal_stage. */
                internal_stage?: string;
                /** @description Equality filter on owner_id. */
                owner_id?: string;
                /** @description Equality filter on organization_id. */
                organization_id?: string;
                /** @description Equality filter on source. */
                source?: string;
                /** @description Equality filter on country. */
                country?: string;
                /** @description Equality filter on state. */
                state?: string;
                /** @description Equality filter on city. */
                city?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "svc_uid": "ext-contact-1042",
                     *           "first_name": "Ada",
                     *           "last_name": "Lovelace",
                     *           "email": "ada.lovelace@example.com",
                     *           "phone": "+44 20 7946 0958",
                     *           "title": "Head of Engineering",
                     *           "company_name": "Analytical Engines Ltd",
                     *           "company_domain": "example.com",
                     *           "internal_stage": "lead",
                     *           "priority": 500,
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *           "source": "webinar",
                     *           "country": "GB",
                     *           "state": "Greater London",
                     *           "city": "London",
                     *           "last_engagement_at": "2026-03-02T09:30:00Z",
                     *           "last_touchpoint_at": "2026-03-02T09:30:00Z",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Contact"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "first_name": "Ada",
                 *       "last_name": "Lovelace",
                 *       "email": "ada.lovelace@example.com",
                 *       "phone": "+44 20 7946 0958",
                 *       "title": "Head of Engineering",
                 *       "company_name": "Analytical Engines Ltd",
                 *       "company_domain": "example.com",
                 *       "internal_stage": "lead",
                 *       "priority": 500,
                 *       "source": "webinar",
                 *       "country": "GB",
                 *       "state": "Greater London",
                 *       "city": "London"
                 *     }
                 */
                "application/json": components["schemas"]["ContactCreate"];
            };
        };
        responses: {
            /** @description The created contact. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "svc_uid": "ext-contact-1042",
                     *         "first_name": "Ada",
                     *         "last_name": "Lovelace",
                     *         "email": "ada.lovelace@example.com",
                     *         "phone": "+44 20 7946 0958",
                     *         "title": "Head of Engineering",
                     *         "company_name": "Analytical Engines Ltd",
                     *         "company_domain": "example.com",
                     *         "internal_stage": "lead",
                     *         "priority": 500,
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "source": "webinar",
                     *         "country": "GB",
                     *         "state": "Greater London",
                     *         "city": "London",
                     *         "last_engagement_at": "2026-03-02T09:30:00Z",
                     *         "last_touchpoint_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The contact. */
                        data: components["schemas"]["Contact"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The contact. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "svc_uid": "ext-contact-1042",
                     *         "first_name": "Ada",
                     *         "last_name": "Lovelace",
                     *         "email": "ada.lovelace@example.com",
                     *         "phone": "+44 20 7946 0958",
                     *         "title": "Head of Engineering",
                     *         "company_name": "Analytical Engines Ltd",
                     *         "company_domain": "example.com",
                     *         "internal_stage": "lead",
                     *         "priority": 500,
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "source": "webinar",
                     *         "country": "GB",
                     *         "state": "Greater London",
                     *         "city": "London",
                     *         "last_engagement_at": "2026-03-02T09:30:00Z",
                     *         "last_touchpoint_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The contact. */
                        data: components["schemas"]["Contact"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "internal_stage": "qualified",
                 *       "priority": 800
                 *     }
                 */
                "application/json": components["schemas"]["ContactUpdate"];
            };
        };
        responses: {
            /** @description The updated contact. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "svc_uid": "ext-contact-1042",
                     *         "first_name": "Ada",
                     *         "last_name": "Lovelace",
                     *         "email": "ada.lovelace@example.com",
                     *         "phone": "+44 20 7946 0958",
                     *         "title": "Head of Engineering",
                     *         "company_name": "Analytical Engines Ltd",
                     *         "company_domain": "example.com",
                     *         "internal_stage": "qualified",
                     *         "priority": 800,
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "source": "webinar",
                     *         "country": "GB",
                     *         "state": "Greater London",
                     *         "city": "London",
                     *         "last_engagement_at": "2026-03-02T09:30:00Z",
                     *         "last_touchpoint_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The contact. */
                        data: components["schemas"]["Contact"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listOrganizations: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: name, industry, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over name, domain, website_url (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on domain. */
                domain?: string;
                /** @description Equality filter on industry. */
                industry?: string;
                /** @description Equality filter on country. */
                country?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *           "svc_uid": "ext-organization-1042",
                     *           "name": "Analytical Engines Ltd",
                     *           "domain": "example.com",
                     *           "website_url": "https://example.com",
                     *           "industry": "Software",
                     *           "country": "GB",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Organization"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createOrganization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Analytical Engines Ltd",
                 *       "domain": "example.com",
                 *       "website_url": "https://example.com",
                 *       "industry": "Software",
                 *       "country": "GB"
                 *     }
                 */
                "application/json": components["schemas"]["OrganizationCreate"];
            };
        };
        responses: {
            /** @description The created organization. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "svc_uid": "ext-organization-1042",
                     *         "name": "Analytical Engines Ltd",
                     *         "domain": "example.com",
                     *         "website_url": "https://example.com",
                     *         "industry": "Software",
                     *         "country": "GB",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The organization. */
                        data: components["schemas"]["Organization"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "svc_uid": "ext-organization-1042",
                     *         "name": "Analytical Engines Ltd",
                     *         "domain": "example.com",
                     *         "website_url": "https://example.com",
                     *         "industry": "Software",
                     *         "country": "GB",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The organization. */
                        data: components["schemas"]["Organization"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteOrganization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateOrganization: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "industry": "Manufacturing"
                 *     }
                 */
                "application/json": components["schemas"]["OrganizationUpdate"];
            };
        };
        responses: {
            /** @description The updated organization. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "svc_uid": "ext-organization-1042",
                     *         "name": "Analytical Engines Ltd",
                     *         "domain": "example.com",
                     *         "website_url": "https://example.com",
                     *         "industry": "Manufacturing",
                     *         "country": "GB",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The organization. */
                        data: components["schemas"]["Organization"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listPools: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: name, contacts_count, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over name, description (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on owner_id. */
                owner_id?: string;
                /** @description Equality filter on visibility. */
                visibility?: "private" | "workspace";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *           "svc_uid": "ext-pool-1042",
                     *           "name": "Q3 webinar attendees",
                     *           "description": "Everyone who attended the Q3 product webinar.",
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "visibility": "workspace",
                     *           "contacts_count": 42,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Pool"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createPool: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Q3 webinar attendees",
                 *       "description": "Everyone who attended the Q3 product webinar.",
                 *       "visibility": "workspace"
                 *     }
                 */
                "application/json": components["schemas"]["PoolCreate"];
            };
        };
        responses: {
            /** @description The created pool. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *         "svc_uid": "ext-pool-1042",
                     *         "name": "Q3 webinar attendees",
                     *         "description": "Everyone who attended the Q3 product webinar.",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "visibility": "workspace",
                     *         "contacts_count": 42,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The pool. */
                        data: components["schemas"]["Pool"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getPool: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pool. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *         "svc_uid": "ext-pool-1042",
                     *         "name": "Q3 webinar attendees",
                     *         "description": "Everyone who attended the Q3 product webinar.",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "visibility": "workspace",
                     *         "contacts_count": 42,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The pool. */
                        data: components["schemas"]["Pool"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deletePool: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updatePool: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Q3 webinar attendees (EMEA)"
                 *     }
                 */
                "application/json": components["schemas"]["PoolUpdate"];
            };
        };
        responses: {
            /** @description The updated pool. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *         "svc_uid": "ext-pool-1042",
                     *         "name": "Q3 webinar attendees (EMEA)",
                     *         "description": "Everyone who attended the Q3 product webinar.",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "visibility": "workspace",
                     *         "contacts_count": 42,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The pool. */
                        data: components["schemas"]["Pool"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    addPoolMembers: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "contact_ids": [
                 *         "e4b12c90-b4f9-4624-bff8-996922818725",
                 *         "9b5e2eb3-7358-43e2-a802-42908af0a459"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Contact ids. */
                    contact_ids: string[];
                };
            };
        };
        responses: {
            /** @description What the call changed, and the pool's new contacts_count. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "added": [
                     *           "e4b12c90-b4f9-4624-bff8-996922818725"
                     *         ],
                     *         "already_members": [
                     *           "9b5e2eb3-7358-43e2-a802-42908af0a459"
                     *         ],
                     *         "not_found": [],
                     *         "contacts_count": 43
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description What the call did with each id. */
                        data: {
                            /** @description Became members. */
                            added?: string[];
                            /** @description Were members already. */
                            already_members?: string[];
                            /** @description No such contact in the workspace. */
                            not_found?: string[];
                            /**
                             * Format: int64
                             * @description The pool's member count after the call.
                             */
                            contacts_count?: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    removePoolMembers: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "contact_ids": [
                 *         "e4b12c90-b4f9-4624-bff8-996922818725",
                 *         "9b5e2eb3-7358-43e2-a802-42908af0a459"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Contact ids. */
                    contact_ids: string[];
                };
            };
        };
        responses: {
            /** @description What the call changed, and the pool's new contacts_count. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "removed": [
                     *           "e4b12c90-b4f9-4624-bff8-996922818725"
                     *         ],
                     *         "not_members": [
                     *           "9b5e2eb3-7358-43e2-a802-42908af0a459"
                     *         ],
                     *         "not_found": [],
                     *         "contacts_count": 41
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description What the call did with each id. */
                        data: {
                            /** @description Were removed. */
                            removed?: string[];
                            /** @description Were not members. */
                            not_members?: string[];
                            /** @description No such contact in the workspace. */
                            not_found?: string[];
                            /**
                             * Format: int64
                             * @description The pool's member count after the call.
                             */
                            contacts_count?: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listPoolContacts: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: added_at. Default: -added_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on added_at. */
                since?: string;
                /** @description Upper bound (exclusive) on added_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on pool_id. */
                pool_id?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on added_by. */
                added_by?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "5c1c6833-3955-4f16-a7d0-1a02831cca31",
                     *           "svc_uid": "ext-pool_contact-1042",
                     *           "pool_id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "added_by": "6fb02314-c15e-4482-99a0-c9cdd7a54e15",
                     *           "added_at": "2026-03-02T09:30:00Z",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["PoolContact"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createPoolContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "pool_id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                 *       "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725"
                 *     }
                 */
                "application/json": components["schemas"]["PoolContactCreate"];
            };
        };
        responses: {
            /** @description The created pool_contact. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "5c1c6833-3955-4f16-a7d0-1a02831cca31",
                     *         "svc_uid": "ext-pool_contact-1042",
                     *         "pool_id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "added_by": "6fb02314-c15e-4482-99a0-c9cdd7a54e15",
                     *         "added_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The pool contact. */
                        data: components["schemas"]["PoolContact"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getPoolContact: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The pool_contact. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "5c1c6833-3955-4f16-a7d0-1a02831cca31",
                     *         "svc_uid": "ext-pool_contact-1042",
                     *         "pool_id": "030d0970-f9f0-4e92-93cf-f8b174926abd",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "added_by": "6fb02314-c15e-4482-99a0-c9cdd7a54e15",
                     *         "added_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The pool contact. */
                        data: components["schemas"]["PoolContact"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deletePoolContact: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listTasks: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: status, priority, due_at, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over title, description (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on status. */
                status?: "open" | "completed";
                /** @description Equality filter on priority. */
                priority?: number;
                /** @description Equality filter on assignee_id. */
                assignee_id?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on organization_id. */
                organization_id?: string;
                /** @description Equality filter on type. */
                type?: "email" | "call" | "chat_app" | "professional_network" | "other";
                /** @description Equality filter on suggested_action. */
                suggested_action?: "email" | "call" | "chat_app" | "professional_network" | "other";
                /** @description Equality filter on flow_enrollment_id. */
                flow_enrollment_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "9d53a797-ef8c-4202-862c-9922aa6651d5",
                     *           "svc_uid": "ext-task-1042",
                     *           "title": "Call Ada about the demo",
                     *           "description": "She asked for pricing for 20 seats.",
                     *           "status": "open",
                     *           "priority": 700,
                     *           "due_at": "2026-03-03T17:00:00Z",
                     *           "assignee_id": "5a656f81-c040-4baa-893d-caa0028914e1",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *           "type": "call",
                     *           "suggested_action": "email",
                     *           "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *           "completed_at": "2026-03-02T09:30:00Z",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Task"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Call Ada about the demo",
                 *       "description": "She asked for pricing for 20 seats.",
                 *       "priority": 700,
                 *       "due_at": "2026-03-03T17:00:00Z",
                 *       "type": "call"
                 *     }
                 */
                "application/json": components["schemas"]["TaskCreate"];
            };
        };
        responses: {
            /** @description The created task. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "9d53a797-ef8c-4202-862c-9922aa6651d5",
                     *         "svc_uid": "ext-task-1042",
                     *         "title": "Call Ada about the demo",
                     *         "description": "She asked for pricing for 20 seats.",
                     *         "status": "open",
                     *         "priority": 700,
                     *         "due_at": "2026-03-03T17:00:00Z",
                     *         "assignee_id": "5a656f81-c040-4baa-893d-caa0028914e1",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "type": "call",
                     *         "suggested_action": "email",
                     *         "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *         "completed_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The task. */
                        data: components["schemas"]["Task"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "9d53a797-ef8c-4202-862c-9922aa6651d5",
                     *         "svc_uid": "ext-task-1042",
                     *         "title": "Call Ada about the demo",
                     *         "description": "She asked for pricing for 20 seats.",
                     *         "status": "open",
                     *         "priority": 700,
                     *         "due_at": "2026-03-03T17:00:00Z",
                     *         "assignee_id": "5a656f81-c040-4baa-893d-caa0028914e1",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "type": "call",
                     *         "suggested_action": "email",
                     *         "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *         "completed_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The task. */
                        data: components["schemas"]["Task"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateTask: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "completed"
                 *     }
                 */
                "application/json": components["schemas"]["TaskUpdate"];
            };
        };
        responses: {
            /** @description The updated task. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "9d53a797-ef8c-4202-862c-9922aa6651d5",
                     *         "svc_uid": "ext-task-1042",
                     *         "title": "Call Ada about the demo",
                     *         "description": "She asked for pricing for 20 seats.",
                     *         "status": "completed",
                     *         "priority": 700,
                     *         "due_at": "2026-03-03T17:00:00Z",
                     *         "assignee_id": "5a656f81-c040-4baa-893d-caa0028914e1",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "organization_id": "7514f641-1e8b-43fa-b37d-cd18fcff186d",
                     *         "type": "call",
                     *         "suggested_action": "email",
                     *         "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *         "completed_at": "2026-03-02T09:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The task. */
                        data: components["schemas"]["Task"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listCallLogs: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: started_at, ended_at, duration_seconds, created_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over notes (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on owner_id. */
                owner_id?: string;
                /** @description Equality filter on status. */
                status?: "completed" | "missed" | "failed";
                /** @description Equality filter on outcome. */
                outcome?: "connected" | "voicemail" | "no_answer" | "busy" | "wrong_number";
                /** @description Equality filter on mode. */
                mode?: "manual" | "dialer";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "60ee1b33-cfda-4eca-8b85-2056afb77535",
                     *           "svc_uid": "ext-call_log-1042",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "status": "completed",
                     *           "outcome": "connected",
                     *           "mode": "manual",
                     *           "notes": "Interested in a demo next week.",
                     *           "started_at": "2026-03-02T09:30:00Z",
                     *           "ended_at": "2026-03-02T09:42:30Z",
                     *           "duration_seconds": 750,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["CallLog"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createCallLog: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "completed",
                 *       "outcome": "connected",
                 *       "notes": "Interested in a demo next week.",
                 *       "started_at": "2026-03-02T09:30:00Z",
                 *       "ended_at": "2026-03-02T09:42:30Z",
                 *       "duration_seconds": 750
                 *     }
                 */
                "application/json": components["schemas"]["CallLogCreate"];
            };
        };
        responses: {
            /** @description The created call_log. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "60ee1b33-cfda-4eca-8b85-2056afb77535",
                     *         "svc_uid": "ext-call_log-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "status": "completed",
                     *         "outcome": "connected",
                     *         "mode": "manual",
                     *         "notes": "Interested in a demo next week.",
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "ended_at": "2026-03-02T09:42:30Z",
                     *         "duration_seconds": 750,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The call log. */
                        data: components["schemas"]["CallLog"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getCallLog: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The call_log. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "60ee1b33-cfda-4eca-8b85-2056afb77535",
                     *         "svc_uid": "ext-call_log-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "status": "completed",
                     *         "outcome": "connected",
                     *         "mode": "manual",
                     *         "notes": "Interested in a demo next week.",
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "ended_at": "2026-03-02T09:42:30Z",
                     *         "duration_seconds": 750,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The call log. */
                        data: components["schemas"]["CallLog"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listMeetings: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: scheduled_start, scheduled_end, created_at. Default: -scheduled_start. */
                sort?: string;
                /** @description Lower bound (inclusive) on scheduled_start. */
                since?: string;
                /** @description Upper bound (exclusive) on scheduled_start. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over title, description, location (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on owner_id. */
                owner_id?: string;
                /** @description Equality filter on status. */
                status?: "scheduled" | "completed" | "canceled" | "no_show";
                /** @description Equality filter on outcome. */
                outcome?: "held" | "rescheduled" | "no_show" | "qualified" | "disqualified";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e348d571-d7e9-4532-a7a2-854ace148195",
                     *           "svc_uid": "ext-meeting-1042",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "status": "scheduled",
                     *           "outcome": "held",
                     *           "title": "Product demo",
                     *           "description": "Walk through the flows builder.",
                     *           "location": "https://meet.example.com/abc-defg-hij",
                     *           "scheduled_start": "2026-03-09T14:00:00Z",
                     *           "scheduled_end": "2026-03-09T14:30:00Z",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Meeting"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createMeeting: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Product demo",
                 *       "description": "Walk through the flows builder.",
                 *       "location": "https://meet.example.com/abc-defg-hij",
                 *       "scheduled_start": "2026-03-09T14:00:00Z",
                 *       "scheduled_end": "2026-03-09T14:30:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["MeetingCreate"];
            };
        };
        responses: {
            /** @description The created meeting. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e348d571-d7e9-4532-a7a2-854ace148195",
                     *         "svc_uid": "ext-meeting-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "status": "scheduled",
                     *         "outcome": "held",
                     *         "title": "Product demo",
                     *         "description": "Walk through the flows builder.",
                     *         "location": "https://meet.example.com/abc-defg-hij",
                     *         "scheduled_start": "2026-03-09T14:00:00Z",
                     *         "scheduled_end": "2026-03-09T14:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The meeting. */
                        data: components["schemas"]["Meeting"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getMeeting: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The meeting. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e348d571-d7e9-4532-a7a2-854ace148195",
                     *         "svc_uid": "ext-meeting-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "status": "scheduled",
                     *         "outcome": "held",
                     *         "title": "Product demo",
                     *         "description": "Walk through the flows builder.",
                     *         "location": "https://meet.example.com/abc-defg-hij",
                     *         "scheduled_start": "2026-03-09T14:00:00Z",
                     *         "scheduled_end": "2026-03-09T14:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The meeting. */
                        data: components["schemas"]["Meeting"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteMeeting: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateMeeting: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "completed",
                 *       "outcome": "qualified"
                 *     }
                 */
                "application/json": components["schemas"]["MeetingUpdate"];
            };
        };
        responses: {
            /** @description The updated meeting. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e348d571-d7e9-4532-a7a2-854ace148195",
                     *         "svc_uid": "ext-meeting-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "status": "completed",
                     *         "outcome": "qualified",
                     *         "title": "Product demo",
                     *         "description": "Walk through the flows builder.",
                     *         "location": "https://meet.example.com/abc-defg-hij",
                     *         "scheduled_start": "2026-03-09T14:00:00Z",
                     *         "scheduled_end": "2026-03-09T14:30:00Z",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The meeting. */
                        data: components["schemas"]["Meeting"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: full_name, role, created_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over email, full_name (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on role. */
                role?: "owner" | "admin" | "member";
                /** @description Equality filter on is_active. */
                is_active?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e230c949-3165-48fa-9812-75588a059841",
                     *           "svc_uid": "ext-user-1042",
                     *           "email": "grace.hopper@example.com",
                     *           "full_name": "Grace Hopper",
                     *           "role": "admin",
                     *           "is_active": true,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["User"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e230c949-3165-48fa-9812-75588a059841",
                     *         "svc_uid": "ext-user-1042",
                     *         "email": "grace.hopper@example.com",
                     *         "full_name": "Grace Hopper",
                     *         "role": "admin",
                     *         "is_active": true,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The user. */
                        data: components["schemas"]["User"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listIntegrations: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: type, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on type. */
                type?: "smtp";
                /** @description Equality filter on status. */
                status?: "connected" | "checking" | "error" | "disconnected";
                /** @description Equality filter on enabled. */
                enabled?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e8b5ba2e-067a-40a8-a1c7-2fcb5f362741",
                     *           "svc_uid": "ext-integration-1042",
                     *           "type": "smtp",
                     *           "name": "Company mail server",
                     *           "status": "connected",
                     *           "status_reason": null,
                     *           "enabled": true,
                     *           "config": {
                     *             "host": "smtp.example.com",
                     *             "port": 587,
                     *             "secure": false,
                     *             "username": "crm",
                     *             "from_email": "sales@example.com",
                     *             "from_name": "Example Sales",
                     *             "verp": false
                     *           },
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Integration"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getIntegration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The integration. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e8b5ba2e-067a-40a8-a1c7-2fcb5f362741",
                     *         "svc_uid": "ext-integration-1042",
                     *         "type": "smtp",
                     *         "name": "Company mail server",
                     *         "status": "connected",
                     *         "status_reason": null,
                     *         "enabled": true,
                     *         "config": {
                     *           "host": "smtp.example.com",
                     *           "port": 587,
                     *           "secure": false,
                     *           "username": "crm",
                     *           "from_email": "sales@example.com",
                     *           "from_name": "Example Sales",
                     *           "verp": false
                     *         },
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The integration. */
                        data: components["schemas"]["Integration"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listSentEmails: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: sent_at, created_at. Default: -sent_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on sent_at. */
                since?: string;
                /** @description Upper bound (exclusive) on sent_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over subject, to_email, from_email (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on owner_id. */
                owner_id?: string;
                /** @description Equality filter on status. */
                status?: "queued" | "sent" | "bounced" | "failed";
                /** @description Equality filter on provider. */
                provider?: "smtp" | "log";
                /** @description Equality filter on flow_id. */
                flow_id?: string;
                /** @description Equality filter on flow_enrollment_id. */
                flow_enrollment_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *           "svc_uid": "ext-sent_email-1042",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "template_id": "d9068ed8-a2fe-4946-93f9-d3e9930d3f75",
                     *           "status": "queued",
                     *           "provider": "smtp",
                     *           "subject": "Hello {{ first_name }}",
                     *           "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>",
                     *           "body_text": "Hi {{ first_name }}, thanks for joining the webinar.",
                     *           "to_email": "ada@example.com",
                     *           "from_email": "sales@example.com",
                     *           "from_name": "Example Sales",
                     *           "message_id": "<4f2a9c10.e5b7@mail.example.com>",
                     *           "failure_reason": null,
                     *           "attempts": 1,
                     *           "last_error": null,
                     *           "next_attempt_at": null,
                     *           "sent_at": "2026-03-02T09:30:00Z",
                     *           "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "flow_node_id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *           "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["SentEmail"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createSentEmail: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                 *       "subject": "Hello {{ first_name }}",
                 *       "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>",
                 *       "body_text": "Hi {{ first_name }}, thanks for joining the webinar.",
                 *       "from_email": "sales@example.com",
                 *       "from_name": "Example Sales"
                 *     }
                 */
                "application/json": components["schemas"]["SentEmailCreate"];
            };
        };
        responses: {
            /** @description The created sent_email. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *         "svc_uid": "ext-sent_email-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "template_id": "d9068ed8-a2fe-4946-93f9-d3e9930d3f75",
                     *         "status": "queued",
                     *         "provider": "smtp",
                     *         "subject": "Hello {{ first_name }}",
                     *         "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>",
                     *         "body_text": "Hi {{ first_name }}, thanks for joining the webinar.",
                     *         "to_email": "ada@example.com",
                     *         "from_email": "sales@example.com",
                     *         "from_name": "Example Sales",
                     *         "message_id": "<4f2a9c10.e5b7@mail.example.com>",
                     *         "failure_reason": null,
                     *         "attempts": 1,
                     *         "last_error": null,
                     *         "next_attempt_at": null,
                     *         "sent_at": "2026-03-02T09:30:00Z",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "flow_node_id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *         "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The sent email. */
                        data: components["schemas"]["SentEmail"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getSentEmail: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sent_email. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *         "svc_uid": "ext-sent_email-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "template_id": "d9068ed8-a2fe-4946-93f9-d3e9930d3f75",
                     *         "status": "queued",
                     *         "provider": "smtp",
                     *         "subject": "Hello {{ first_name }}",
                     *         "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>",
                     *         "body_text": "Hi {{ first_name }}, thanks for joining the webinar.",
                     *         "to_email": "ada@example.com",
                     *         "from_email": "sales@example.com",
                     *         "from_name": "Example Sales",
                     *         "message_id": "<4f2a9c10.e5b7@mail.example.com>",
                     *         "failure_reason": null,
                     *         "attempts": 1,
                     *         "last_error": null,
                     *         "next_attempt_at": null,
                     *         "sent_at": "2026-03-02T09:30:00Z",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "flow_node_id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *         "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The sent email. */
                        data: components["schemas"]["SentEmail"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listEmailEvents: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: occurred_at, created_at. Default: -occurred_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on occurred_at. */
                since?: string;
                /** @description Upper bound (exclusive) on occurred_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on sent_email_id. */
                sent_email_id?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on event_type. */
                event_type?: "open" | "click" | "reply" | "bounce" | "unsubscribe";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "26c8325b-a174-4432-bea2-befcc16232b1",
                     *           "svc_uid": "ext-email_event-1042",
                     *           "sent_email_id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "event_type": "open",
                     *           "occurred_at": "2026-03-02T09:30:00Z",
                     *           "is_bot": false,
                     *           "url": null,
                     *           "user_agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15",
                     *           "bounce_type": null,
                     *           "status_code": null,
                     *           "detail": null,
                     *           "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "flow_node_id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *           "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["EmailEvent"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getEmailEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The email_event. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "26c8325b-a174-4432-bea2-befcc16232b1",
                     *         "svc_uid": "ext-email_event-1042",
                     *         "sent_email_id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "event_type": "open",
                     *         "occurred_at": "2026-03-02T09:30:00Z",
                     *         "is_bot": false,
                     *         "url": null,
                     *         "user_agent": "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15",
                     *         "bounce_type": null,
                     *         "status_code": null,
                     *         "detail": null,
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "flow_node_id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *         "flow_enrollment_id": "433f2efd-9aa8-48a2-a5de-7b6eef48b9a5",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The email event. */
                        data: components["schemas"]["EmailEvent"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listTouchpoints: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: occurred_at, created_at. Default: -occurred_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on occurred_at. */
                since?: string;
                /** @description Upper bound (exclusive) on occurred_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over summary, subject (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on owner_id. */
                owner_id?: string;
                /** @description Equality filter on channel. */
                channel?: "email" | "chat_app" | "call" | "professional_network";
                /** @description Equality filter on direction. */
                direction?: "inbound" | "outbound";
                /** @description Equality filter on status. */
                status?: "completed" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "7ecbd365-8770-4c72-b2c0-f3cc088e90c1",
                     *           "svc_uid": "ext-touchpoint-1042",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "channel": "professional_network",
                     *           "direction": "outbound",
                     *           "status": "completed",
                     *           "summary": "Sent a connection request after the webinar.",
                     *           "subject": "Webinar follow-up",
                     *           "occurred_at": "2026-03-02T09:30:00Z",
                     *           "source": "manual",
                     *           "source_id": null,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Touchpoint"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createTouchpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                 *       "channel": "professional_network",
                 *       "direction": "outbound",
                 *       "summary": "Sent a connection request after the webinar.",
                 *       "subject": "Webinar follow-up",
                 *       "occurred_at": "2026-03-02T09:30:00Z"
                 *     }
                 */
                "application/json": components["schemas"]["TouchpointCreate"];
            };
        };
        responses: {
            /** @description The created touchpoint. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "7ecbd365-8770-4c72-b2c0-f3cc088e90c1",
                     *         "svc_uid": "ext-touchpoint-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "channel": "professional_network",
                     *         "direction": "outbound",
                     *         "status": "completed",
                     *         "summary": "Sent a connection request after the webinar.",
                     *         "subject": "Webinar follow-up",
                     *         "occurred_at": "2026-03-02T09:30:00Z",
                     *         "source": "manual",
                     *         "source_id": null,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The touchpoint. */
                        data: components["schemas"]["Touchpoint"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getTouchpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The touchpoint. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "7ecbd365-8770-4c72-b2c0-f3cc088e90c1",
                     *         "svc_uid": "ext-touchpoint-1042",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "channel": "professional_network",
                     *         "direction": "outbound",
                     *         "status": "completed",
                     *         "summary": "Sent a connection request after the webinar.",
                     *         "subject": "Webinar follow-up",
                     *         "occurred_at": "2026-03-02T09:30:00Z",
                     *         "source": "manual",
                     *         "source_id": null,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The touchpoint. */
                        data: components["schemas"]["Touchpoint"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listEmailTemplates: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: name, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over name, subject (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "347d4309-3cf6-45da-9a4a-1f24ce018e85",
                     *           "svc_uid": "ext-email_template-1042",
                     *           "name": "Webinar follow-up",
                     *           "description": "Sent the day after a webinar.",
                     *           "subject": "Thanks for joining, {{ first_name }}",
                     *           "body": "<p>Hi {{ first_name }},</p><p>Here are the slides.</p><p>{{ sender.full_name }}</p>",
                     *           "body_text": "Example text.",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["EmailTemplate"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createEmailTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Webinar follow-up",
                 *       "description": "Sent the day after a webinar.",
                 *       "subject": "Thanks for joining, {{ first_name }}",
                 *       "body": "<p>Hi {{ first_name }},</p><p>Here are the slides.</p><p>{{ sender.full_name }}</p>"
                 *     }
                 */
                "application/json": components["schemas"]["EmailTemplateCreate"];
            };
        };
        responses: {
            /** @description The created email_template. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "347d4309-3cf6-45da-9a4a-1f24ce018e85",
                     *         "svc_uid": "ext-email_template-1042",
                     *         "name": "Webinar follow-up",
                     *         "description": "Sent the day after a webinar.",
                     *         "subject": "Thanks for joining, {{ first_name }}",
                     *         "body": "<p>Hi {{ first_name }},</p><p>Here are the slides.</p><p>{{ sender.full_name }}</p>",
                     *         "body_text": "Example text.",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The email template. */
                        data: components["schemas"]["EmailTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getEmailTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The email_template. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "347d4309-3cf6-45da-9a4a-1f24ce018e85",
                     *         "svc_uid": "ext-email_template-1042",
                     *         "name": "Webinar follow-up",
                     *         "description": "Sent the day after a webinar.",
                     *         "subject": "Thanks for joining, {{ first_name }}",
                     *         "body": "<p>Hi {{ first_name }},</p><p>Here are the slides.</p><p>{{ sender.full_name }}</p>",
                     *         "body_text": "Example text.",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The email template. */
                        data: components["schemas"]["EmailTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteEmailTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateEmailTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subject": "The slides, {{ first_name }}"
                 *     }
                 */
                "application/json": components["schemas"]["EmailTemplateUpdate"];
            };
        };
        responses: {
            /** @description The updated email_template. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "347d4309-3cf6-45da-9a4a-1f24ce018e85",
                     *         "svc_uid": "ext-email_template-1042",
                     *         "name": "Webinar follow-up",
                     *         "description": "Sent the day after a webinar.",
                     *         "subject": "The slides, {{ first_name }}",
                     *         "body": "<p>Hi {{ first_name }},</p><p>Here are the slides.</p><p>{{ sender.full_name }}</p>",
                     *         "body_text": "Example text.",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The email template. */
                        data: components["schemas"]["EmailTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listChatappTemplates: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: name, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over name (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on channel. */
                channel?: "chat_app" | "professional_network";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e5836bb2-6c0b-42fe-9c8d-3ab7847042d1",
                     *           "svc_uid": "ext-chatapp_template-1042",
                     *           "name": "Connection request",
                     *           "description": "Example text.",
                     *           "channel": "professional_network",
                     *           "body": "Hi {{ first_name }}, good to meet you at the webinar.",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["ChatappTemplate"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createChatappTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Connection request",
                 *       "channel": "professional_network",
                 *       "body": "Hi {{ first_name }}, good to meet you at the webinar."
                 *     }
                 */
                "application/json": components["schemas"]["ChatappTemplateCreate"];
            };
        };
        responses: {
            /** @description The created chatapp_template. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e5836bb2-6c0b-42fe-9c8d-3ab7847042d1",
                     *         "svc_uid": "ext-chatapp_template-1042",
                     *         "name": "Connection request",
                     *         "description": "Example text.",
                     *         "channel": "professional_network",
                     *         "body": "Hi {{ first_name }}, good to meet you at the webinar.",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The chatapp template. */
                        data: components["schemas"]["ChatappTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getChatappTemplate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The chatapp_template. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e5836bb2-6c0b-42fe-9c8d-3ab7847042d1",
                     *         "svc_uid": "ext-chatapp_template-1042",
                     *         "name": "Connection request",
                     *         "description": "Example text.",
                     *         "channel": "professional_network",
                     *         "body": "Hi {{ first_name }}, good to meet you at the webinar.",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The chatapp template. */
                        data: components["schemas"]["ChatappTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteChatappTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateChatappTemplate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "body": "Hi {{ first_name }}, thanks for connecting."
                 *     }
                 */
                "application/json": components["schemas"]["ChatappTemplateUpdate"];
            };
        };
        responses: {
            /** @description The updated chatapp_template. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e5836bb2-6c0b-42fe-9c8d-3ab7847042d1",
                     *         "svc_uid": "ext-chatapp_template-1042",
                     *         "name": "Connection request",
                     *         "description": "Example text.",
                     *         "channel": "professional_network",
                     *         "body": "Hi {{ first_name }}, thanks for connecting.",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The chatapp template. */
                        data: components["schemas"]["ChatappTemplate"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getContactTimeline: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor. */
                cursor?: string;
                /** @description Only rows of this kind. */
                kind?: "sent_email" | "email_event" | "touchpoint" | "call_log" | "meeting" | "task";
                /** @description Lower bound (inclusive) on occurred_at. */
                since?: string;
                /** @description Upper bound (exclusive) on occurred_at. */
                until?: string;
            };
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of TimelineEvent. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "kind": "email_event",
                     *           "id": "26c8325b-a174-4432-bea2-befcc16232b1",
                     *           "occurred_at": "2026-03-02T10:05:00Z",
                     *           "summary": "Opened \"Hello Ada\"",
                     *           "payload": {
                     *             "event_type": "open",
                     *             "sent_email_id": "844466f3-4246-4f0e-b567-a20676533b41"
                     *           }
                     *         },
                     *         {
                     *           "kind": "sent_email",
                     *           "id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *           "occurred_at": "2026-03-02T09:30:00Z",
                     *           "summary": "Sent \"Hello Ada\"",
                     *           "payload": {
                     *             "status": "sent"
                     *           }
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: {
                            /**
                             * @description What the row is: sent_email, email_event, touchpoint, call_log, meeting or task.
                             * @enum {string}
                             */
                            kind: "sent_email" | "email_event" | "touchpoint" | "call_log" | "meeting" | "task";
                            /**
                             * Format: uuid
                             * @description The record the row is about: the sent email, email event, touchpoint, call log, meeting or task.
                             */
                            id: string;
                            /**
                             * Format: date-time
                             * @description When it happened. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
                             */
                            occurred_at: string;
                            /** @description One line for people, up to 1,000 characters. */
                            summary: string;
                            /** @description Details by kind (a task row carries `action`: created or completed). */
                            payload: Record<string, unknown>;
                        }[];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getUserPerformance: {
        parameters: {
            query?: {
                /** @description The window ending now (default 30d). */
                window?: "24h" | "7d" | "30d" | "90d";
            };
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description UserPerformance. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "user_id": "e230c949-3165-48fa-9812-75588a059841",
                     *         "window": "30d",
                     *         "window_start": "2026-01-31T09:30:00Z",
                     *         "window_end": "2026-03-02T09:30:00Z",
                     *         "emails_sent": 412,
                     *         "emails_replied": 37,
                     *         "emails_opened": 198,
                     *         "emails_clicked": 44,
                     *         "calls_placed": 86,
                     *         "call_talk_seconds": 15840,
                     *         "meetings_scheduled": 12,
                     *         "tasks_completed": 73
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The answer. */
                        data: {
                            /**
                             * Format: uuid
                             * @description The user.
                             */
                            user_id: string;
                            /**
                             * @description The window asked for: 24h, 7d, 30d or 90d.
                             * @enum {string}
                             */
                            window: "24h" | "7d" | "30d" | "90d";
                            /**
                             * Format: date-time
                             * @description Start of the window. RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
                             */
                            window_start: string;
                            /**
                             * Format: date-time
                             * @description End of the window (now). RFC 3339 with an offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z once in UTC.
                             */
                            window_end: string;
                            /**
                             * Format: int64
                             * @description Emails sent as the user in the window.
                             */
                            emails_sent: number;
                            /**
                             * Format: int64
                             * @description Of those, emails that got a reply (each email once).
                             */
                            emails_replied: number;
                            /**
                             * Format: int64
                             * @description Of those, emails opened (each once; automated opens not counted).
                             */
                            emails_opened: number;
                            /**
                             * Format: int64
                             * @description Of those, emails with a link clicked (each once; automated clicks not counted).
                             */
                            emails_clicked: number;
                            /**
                             * Format: int64
                             * @description Calls the user logged in the window.
                             */
                            calls_placed: number;
                            /**
                             * Format: int64
                             * @description Their total talk time, in seconds.
                             */
                            call_talk_seconds: number;
                            /**
                             * Format: int64
                             * @description Meetings the user booked in the window.
                             */
                            meetings_scheduled: number;
                            /**
                             * Format: int64
                             * @description Tasks assigned to the user completed in the window.
                             */
                            tasks_completed: number;
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listFlows: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: name, status, created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over name, description (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on status. */
                status?: "draft" | "active" | "paused" | "archived";
                /** @description Equality filter on owner_id. */
                owner_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "svc_uid": "ext-flow-1042",
                     *           "name": "Webinar follow-up",
                     *           "description": "Three touches over a week after a webinar.",
                     *           "status": "draft",
                     *           "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *           "schedule": {
                     *             "timezone": "Europe/London",
                     *             "days": [
                     *               "mon",
                     *               "tue",
                     *               "wed",
                     *               "thu",
                     *               "fri"
                     *             ],
                     *             "start": "09:00",
                     *             "end": "17:30"
                     *           },
                     *           "nodes": [
                     *             {
                     *               "key": "hello",
                     *               "type": "email",
                     *               "label": "First email",
                     *               "config": {
                     *                 "subject": "Hello {{ first_name }}",
                     *                 "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>"
                     *               }
                     *             },
                     *             {
                     *               "key": "pause",
                     *               "type": "wait",
                     *               "label": "Wait three days",
                     *               "config": {
                     *                 "duration_seconds": 259200
                     *               }
                     *             },
                     *             {
                     *               "key": "call",
                     *               "type": "call",
                     *               "label": "Call",
                     *               "config": {
                     *                 "title": "Call {{ first_name }}"
                     *               }
                     *             },
                     *             {
                     *               "key": "done",
                     *               "type": "end",
                     *               "label": null,
                     *               "config": {}
                     *             }
                     *           ],
                     *           "edges": [
                     *             {
                     *               "from": "hello",
                     *               "to": "pause"
                     *             },
                     *             {
                     *               "from": "pause",
                     *               "to": "call"
                     *             },
                     *             {
                     *               "from": "call",
                     *               "to": "done"
                     *             }
                     *           ],
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Flow"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createFlow: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Webinar follow-up",
                 *       "description": "Three touches over a week after a webinar.",
                 *       "status": "draft",
                 *       "schedule": {
                 *         "timezone": "Europe/London",
                 *         "days": [
                 *           "mon",
                 *           "tue",
                 *           "wed",
                 *           "thu",
                 *           "fri"
                 *         ],
                 *         "start": "09:00",
                 *         "end": "17:30"
                 *       },
                 *       "nodes": [
                 *         {
                 *           "key": "hello",
                 *           "type": "email",
                 *           "label": "First email",
                 *           "config": {
                 *             "subject": "Hello {{ first_name }}",
                 *             "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>"
                 *           }
                 *         },
                 *         {
                 *           "key": "pause",
                 *           "type": "wait",
                 *           "label": "Wait three days",
                 *           "config": {
                 *             "duration_seconds": 259200
                 *           }
                 *         },
                 *         {
                 *           "key": "call",
                 *           "type": "call",
                 *           "label": "Call",
                 *           "config": {
                 *             "title": "Call {{ first_name }}"
                 *           }
                 *         },
                 *         {
                 *           "key": "done",
                 *           "type": "end",
                 *           "label": null,
                 *           "config": {}
                 *         }
                 *       ],
                 *       "edges": [
                 *         {
                 *           "from": "hello",
                 *           "to": "pause"
                 *         },
                 *         {
                 *           "from": "pause",
                 *           "to": "call"
                 *         },
                 *         {
                 *           "from": "call",
                 *           "to": "done"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["FlowCreate"];
            };
        };
        responses: {
            /** @description The created flow. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "svc_uid": "ext-flow-1042",
                     *         "name": "Webinar follow-up",
                     *         "description": "Three touches over a week after a webinar.",
                     *         "status": "draft",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "schedule": {
                     *           "timezone": "Europe/London",
                     *           "days": [
                     *             "mon",
                     *             "tue",
                     *             "wed",
                     *             "thu",
                     *             "fri"
                     *           ],
                     *           "start": "09:00",
                     *           "end": "17:30"
                     *         },
                     *         "nodes": [
                     *           {
                     *             "key": "hello",
                     *             "type": "email",
                     *             "label": "First email",
                     *             "config": {
                     *               "subject": "Hello {{ first_name }}",
                     *               "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>"
                     *             }
                     *           },
                     *           {
                     *             "key": "pause",
                     *             "type": "wait",
                     *             "label": "Wait three days",
                     *             "config": {
                     *               "duration_seconds": 259200
                     *             }
                     *           },
                     *           {
                     *             "key": "call",
                     *             "type": "call",
                     *             "label": "Call",
                     *             "config": {
                     *               "title": "Call {{ first_name }}"
                     *             }
                     *           },
                     *           {
                     *             "key": "done",
                     *             "type": "end",
                     *             "label": null,
                     *             "config": {}
                     *           }
                     *         ],
                     *         "edges": [
                     *           {
                     *             "from": "hello",
                     *             "to": "pause"
                     *           },
                     *           {
                     *             "from": "pause",
                     *             "to": "call"
                     *           },
                     *           {
                     *             "from": "call",
                     *             "to": "done"
                     *           }
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The flow. */
                        data: components["schemas"]["Flow"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The flow. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "svc_uid": "ext-flow-1042",
                     *         "name": "Webinar follow-up",
                     *         "description": "Three touches over a week after a webinar.",
                     *         "status": "draft",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "schedule": {
                     *           "timezone": "Europe/London",
                     *           "days": [
                     *             "mon",
                     *             "tue",
                     *             "wed",
                     *             "thu",
                     *             "fri"
                     *           ],
                     *           "start": "09:00",
                     *           "end": "17:30"
                     *         },
                     *         "nodes": [
                     *           {
                     *             "key": "hello",
                     *             "type": "email",
                     *             "label": "First email",
                     *             "config": {
                     *               "subject": "Hello {{ first_name }}",
                     *               "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>"
                     *             }
                     *           },
                     *           {
                     *             "key": "pause",
                     *             "type": "wait",
                     *             "label": "Wait three days",
                     *             "config": {
                     *               "duration_seconds": 259200
                     *             }
                     *           },
                     *           {
                     *             "key": "call",
                     *             "type": "call",
                     *             "label": "Call",
                     *             "config": {
                     *               "title": "Call {{ first_name }}"
                     *             }
                     *           },
                     *           {
                     *             "key": "done",
                     *             "type": "end",
                     *             "label": null,
                     *             "config": {}
                     *           }
                     *         ],
                     *         "edges": [
                     *           {
                     *             "from": "hello",
                     *             "to": "pause"
                     *           },
                     *           {
                     *             "from": "pause",
                     *             "to": "call"
                     *           },
                     *           {
                     *             "from": "call",
                     *             "to": "done"
                     *           }
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The flow. */
                        data: components["schemas"]["Flow"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteFlow: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateFlow: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "active"
                 *     }
                 */
                "application/json": components["schemas"]["FlowUpdate"];
            };
        };
        responses: {
            /** @description The updated flow. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "svc_uid": "ext-flow-1042",
                     *         "name": "Webinar follow-up",
                     *         "description": "Three touches over a week after a webinar.",
                     *         "status": "active",
                     *         "owner_id": "35fa607f-b6a0-448e-9c0d-09acb689d901",
                     *         "schedule": {
                     *           "timezone": "Europe/London",
                     *           "days": [
                     *             "mon",
                     *             "tue",
                     *             "wed",
                     *             "thu",
                     *             "fri"
                     *           ],
                     *           "start": "09:00",
                     *           "end": "17:30"
                     *         },
                     *         "nodes": [
                     *           {
                     *             "key": "hello",
                     *             "type": "email",
                     *             "label": "First email",
                     *             "config": {
                     *               "subject": "Hello {{ first_name }}",
                     *               "body": "<p>Hi {{ first_name }}, thanks for joining the webinar.</p>"
                     *             }
                     *           },
                     *           {
                     *             "key": "pause",
                     *             "type": "wait",
                     *             "label": "Wait three days",
                     *             "config": {
                     *               "duration_seconds": 259200
                     *             }
                     *           },
                     *           {
                     *             "key": "call",
                     *             "type": "call",
                     *             "label": "Call",
                     *             "config": {
                     *               "title": "Call {{ first_name }}"
                     *             }
                     *           },
                     *           {
                     *             "key": "done",
                     *             "type": "end",
                     *             "label": null,
                     *             "config": {}
                     *           }
                     *         ],
                     *         "edges": [
                     *           {
                     *             "from": "hello",
                     *             "to": "pause"
                     *           },
                     *           {
                     *             "from": "pause",
                     *             "to": "call"
                     *           },
                     *           {
                     *             "from": "call",
                     *             "to": "done"
                     *           }
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The flow. */
                        data: components["schemas"]["Flow"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    enrollContacts: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "contact_ids": [
                 *         "e4b12c90-b4f9-4624-bff8-996922818725",
                 *         "9b5e2eb3-7358-43e2-a802-42908af0a459"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description Contact ids, 1 to 500. */
                    contact_ids?: string[] | null;
                    /**
                     * Format: uuid
                     * @description A pool: every member is enrolled, however many.
                     */
                    pool_id?: string | null;
                } & ({
                    /** @description Contact ids, given. */
                    contact_ids: string[];
                } | {
                    /**
                     * Format: uuid
                     * @description A pool, given.
                     */
                    pool_id: string;
                });
            };
        };
        responses: {
            /** @description What the call did with each contact. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "enrolled": [
                     *           "e4b12c90-b4f9-4624-bff8-996922818725"
                     *         ],
                     *         "already_enrolled": [
                     *           "9b5e2eb3-7358-43e2-a802-42908af0a459"
                     *         ],
                     *         "not_found": [],
                     *         "suppressed": []
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The contacts by what became of them. */
                        data: {
                            /** @description Now enrolled. */
                            enrolled?: string[];
                            /** @description Had an active or paused enrollment in this flow. */
                            already_enrolled?: string[];
                            /** @description No such contact in the workspace. */
                            not_found?: string[];
                            /** @description Their address is suppressed (unsubscribed, hard-bounced). */
                            suppressed?: string[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getFlowAnalytics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description FlowAnalytics. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "flow_name": "Webinar follow-up",
                     *         "enrollments": {
                     *           "active": 120,
                     *           "paused": 3,
                     *           "completed": 64,
                     *           "exited": 11,
                     *           "failed": 0
                     *         },
                     *         "exits": {
                     *           "replied": 9,
                     *           "unsubscribed": 2
                     *         },
                     *         "funnel": [
                     *           {
                     *             "node_id": "48a4e903-ebb0-4996-b7ba-cfa68d7b9b69",
                     *             "node_label": "First email",
                     *             "node_type": "email",
                     *             "count": 198
                     *           },
                     *           {
                     *             "node_id": "59deee89-d3ed-4322-b685-33c4f87306ed",
                     *             "node_label": "Wait three days",
                     *             "node_type": "wait",
                     *             "count": 187
                     *           },
                     *           {
                     *             "node_id": "9d2b908b-4fca-4aca-b332-91d002725879",
                     *             "node_label": "Call",
                     *             "node_type": "call",
                     *             "count": 70
                     *           },
                     *           {
                     *             "node_id": "ecc9c3fb-b5c9-4c1e-9665-924c29cf0551",
                     *             "node_label": null,
                     *             "node_type": "end",
                     *             "count": 64
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The flow's analytics. */
                        data: {
                            /**
                             * Format: uuid
                             * @description The flow.
                             */
                            flow_id?: string;
                            /** @description The flow's name. */
                            flow_name?: string | null;
                            /** @description Enrollments by status (active, paused, completed, exited, failed). */
                            enrollments?: {
                                [key: string]: number;
                            };
                            /** @description Exited enrollments by exit_reason. */
                            exits?: {
                                [key: string]: number;
                            };
                            /** @description One item per node, in graph order. */
                            funnel?: {
                                /**
                                 * Format: uuid
                                 * @description The node.
                                 */
                                node_id?: string;
                                /** @description The node's label. */
                                node_label?: string | null;
                                /**
                                 * @description The node's type.
                                 * @enum {string}
                                 */
                                node_type?: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end";
                                /**
                                 * Format: int64
                                 * @description Enrollments that reached the node.
                                 */
                                count?: number;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listFlowNodes: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: type, created_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Case-insensitive substring search over label (a match lies within one field; `%` and `_` are literal), 1 to 200 characters, not blank. A term of 1 or 2 characters (surrounding spaces aside) may give pages of fewer than `limit` records, or none, with `has_more` true: no index narrows it, so a page looks for it in a bounded number of records, in the list's order after the cursor. Follow `next_cursor` until it is null to see every match. */
                q?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on flow_id. */
                flow_id?: string;
                /** @description Equality filter on type. */
                type?: "email" | "wait" | "task" | "call" | "chat_message" | "professional_network" | "branch" | "end";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *           "svc_uid": "ext-flow_node-1042",
                     *           "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "key": "hello",
                     *           "type": "email",
                     *           "label": "First email",
                     *           "config": {
                     *             "subject": "Hello {{ first_name }}",
                     *             "body": "<p>Hi {{ first_name }}</p>"
                     *           },
                     *           "position": 0,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["FlowNode"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getFlowNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The flow_node. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "d9a909c1-c94f-441a-8dfb-8c4e5d7f7285",
                     *         "svc_uid": "ext-flow_node-1042",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "key": "hello",
                     *         "type": "email",
                     *         "label": "First email",
                     *         "config": {
                     *           "subject": "Hello {{ first_name }}",
                     *           "body": "<p>Hi {{ first_name }}</p>"
                     *         },
                     *         "position": 0,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The flow node. */
                        data: components["schemas"]["FlowNode"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listEnrollments: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: next_run_at, enrolled_at, updated_at. Default: -enrolled_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on enrolled_at. */
                since?: string;
                /** @description Upper bound (exclusive) on enrolled_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on flow_id. */
                flow_id?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on status. */
                status?: "active" | "paused" | "completed" | "exited" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "dbdf288e-d3fc-4d9a-9a9e-d9ebae52df99",
                     *           "svc_uid": "ext-enrollment-1042",
                     *           "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "status": "active",
                     *           "exit_reason": null,
                     *           "failure_reason": null,
                     *           "current_node_id": "f6cef0ac-a759-4522-a77f-37c1fa221129",
                     *           "next_run_at": "2026-03-02T09:30:00Z",
                     *           "enrolled_by": "28f4efc3-81d4-4d6a-baf9-ffb4d9ee3641",
                     *           "enrolled_at": "2026-03-02T09:30:00Z",
                     *           "started_at": "2026-03-02T09:30:00Z",
                     *           "completed_at": null,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["Enrollment"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createEnrollment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                 *       "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725"
                 *     }
                 */
                "application/json": components["schemas"]["EnrollmentCreate"];
            };
        };
        responses: {
            /** @description The created enrollment. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "dbdf288e-d3fc-4d9a-9a9e-d9ebae52df99",
                     *         "svc_uid": "ext-enrollment-1042",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "status": "active",
                     *         "exit_reason": null,
                     *         "failure_reason": null,
                     *         "current_node_id": "f6cef0ac-a759-4522-a77f-37c1fa221129",
                     *         "next_run_at": "2026-03-02T09:30:00Z",
                     *         "enrolled_by": "28f4efc3-81d4-4d6a-baf9-ffb4d9ee3641",
                     *         "enrolled_at": "2026-03-02T09:30:00Z",
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "completed_at": null,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The enrollment. */
                        data: components["schemas"]["Enrollment"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getEnrollment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The enrollment. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "dbdf288e-d3fc-4d9a-9a9e-d9ebae52df99",
                     *         "svc_uid": "ext-enrollment-1042",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "status": "active",
                     *         "exit_reason": null,
                     *         "failure_reason": null,
                     *         "current_node_id": "f6cef0ac-a759-4522-a77f-37c1fa221129",
                     *         "next_run_at": "2026-03-02T09:30:00Z",
                     *         "enrolled_by": "28f4efc3-81d4-4d6a-baf9-ffb4d9ee3641",
                     *         "enrolled_at": "2026-03-02T09:30:00Z",
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "completed_at": null,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The enrollment. */
                        data: components["schemas"]["Enrollment"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateEnrollment: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "paused"
                 *     }
                 */
                "application/json": components["schemas"]["EnrollmentUpdate"];
            };
        };
        responses: {
            /** @description The updated enrollment. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "dbdf288e-d3fc-4d9a-9a9e-d9ebae52df99",
                     *         "svc_uid": "ext-enrollment-1042",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "status": "paused",
                     *         "exit_reason": null,
                     *         "failure_reason": null,
                     *         "current_node_id": "f6cef0ac-a759-4522-a77f-37c1fa221129",
                     *         "next_run_at": "2026-03-02T09:30:00Z",
                     *         "enrolled_by": "28f4efc3-81d4-4d6a-baf9-ffb4d9ee3641",
                     *         "enrolled_at": "2026-03-02T09:30:00Z",
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "completed_at": null,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The enrollment. */
                        data: components["schemas"]["Enrollment"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listEnrollmentSteps: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor. */
                cursor?: string;
                /** @description occurred_at or -occurred_at (default). */
                sort?: "occurred_at" | "-occurred_at";
                /** @description Lower bound (inclusive) on occurred_at. */
                since?: string;
                /** @description Upper bound (exclusive) on occurred_at. */
                until?: string;
                /** @description Only steps with updated_at strictly after this. */
                updated_since?: string;
            };
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of steps. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "9dd2852f-069e-4056-9c37-24ccadd078e1",
                     *           "svc_uid": "ext-enrollment_step-1042",
                     *           "enrollment_id": "dbdf288e-d3fc-4d9a-9a9e-d9ebae52df99",
                     *           "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "node_id": "67e6e3ae-bad7-453e-8a0f-49db2a47e4b1",
                     *           "node_key": "hello",
                     *           "node_type": "email",
                     *           "visit": 1,
                     *           "outcome": "email_queued",
                     *           "detail": null,
                     *           "sent_email_id": "844466f3-4246-4f0e-b567-a20676533b41",
                     *           "task_id": null,
                     *           "occurred_at": "2026-03-02T09:30:00Z",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": null,
                     *       "has_more": false
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["EnrollmentStep"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listFlowRuns: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: status, next_run_at, started_at, completed_at. Default: -started_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on started_at. */
                since?: string;
                /** @description Upper bound (exclusive) on started_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on flow_id. */
                flow_id?: string;
                /** @description Equality filter on contact_id. */
                contact_id?: string;
                /** @description Equality filter on status. */
                status?: "active" | "paused" | "completed" | "exited" | "failed";
                /** @description Equality filter on exit_reason. */
                exit_reason?: "replied" | "bounced" | "unsubscribed" | "meeting_booked" | "contact_deleted" | "flow_archived" | "manual";
                /** @description Equality filter on enrolled_by. */
                enrolled_by?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "904b37c4-e9bc-44ca-950d-7eedaa6d5005",
                     *           "svc_uid": "ext-flow_run-1042",
                     *           "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *           "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *           "status": "active",
                     *           "exit_reason": null,
                     *           "failure_reason": null,
                     *           "current_node_id": "f6cef0ac-a759-4522-a77f-37c1fa221129",
                     *           "next_run_at": "2026-03-02T09:30:00Z",
                     *           "enrolled_by": "28f4efc3-81d4-4d6a-baf9-ffb4d9ee3641",
                     *           "enrolled_at": "2026-03-02T09:30:00Z",
                     *           "started_at": "2026-03-02T09:30:00Z",
                     *           "completed_at": null,
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["FlowRun"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getFlowRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The flow_run. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "904b37c4-e9bc-44ca-950d-7eedaa6d5005",
                     *         "svc_uid": "ext-flow_run-1042",
                     *         "flow_id": "93505836-2246-4846-a159-b7039a1d6a85",
                     *         "contact_id": "e4b12c90-b4f9-4624-bff8-996922818725",
                     *         "status": "active",
                     *         "exit_reason": null,
                     *         "failure_reason": null,
                     *         "current_node_id": "f6cef0ac-a759-4522-a77f-37c1fa221129",
                     *         "next_run_at": "2026-03-02T09:30:00Z",
                     *         "enrolled_by": "28f4efc3-81d4-4d6a-baf9-ffb4d9ee3641",
                     *         "enrolled_at": "2026-03-02T09:30:00Z",
                     *         "started_at": "2026-03-02T09:30:00Z",
                     *         "completed_at": null,
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The flow run. */
                        data: components["schemas"]["FlowRun"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: created_at, updated_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on svc_uid. */
                svc_uid?: string;
                /** @description Equality filter on enabled. */
                enabled?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "d8546115-187c-4bb2-9617-5f002599e955",
                     *           "svc_uid": "ext-webhook_endpoint-1042",
                     *           "url": "https://hooks.example.com/crm",
                     *           "description": "Sync contacts to the data warehouse",
                     *           "event_types": [
                     *             "contact.created",
                     *             "contact.updated"
                     *           ],
                     *           "enabled": true,
                     *           "disabled_reason": "Example",
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["WebhookEndpoint"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/crm",
                 *       "description": "Sync contacts to the data warehouse",
                 *       "event_types": [
                 *         "contact.created",
                 *         "contact.updated"
                 *       ],
                 *       "enabled": true
                 *     }
                 */
                "application/json": components["schemas"]["WebhookEndpointCreate"];
            };
        };
        responses: {
            /** @description The created webhook_endpoint. */
            201: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "d8546115-187c-4bb2-9617-5f002599e955",
                     *         "svc_uid": "ext-webhook_endpoint-1042",
                     *         "url": "https://hooks.example.com/crm",
                     *         "description": "Sync contacts to the data warehouse",
                     *         "event_types": [
                     *           "contact.created",
                     *           "contact.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": "Example",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The webhook endpoint. */
                        data: components["schemas"]["WebhookEndpointCreated"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook_endpoint. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "d8546115-187c-4bb2-9617-5f002599e955",
                     *         "svc_uid": "ext-webhook_endpoint-1042",
                     *         "url": "https://hooks.example.com/crm",
                     *         "description": "Sync contacts to the data warehouse",
                     *         "event_types": [
                     *           "contact.created",
                     *           "contact.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": "Example",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The webhook endpoint. */
                        data: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted. */
            204: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request replays the first answer for 24 hours. */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": true
                 *     }
                 */
                "application/json": components["schemas"]["WebhookEndpointUpdate"];
            };
        };
        responses: {
            /** @description The updated webhook_endpoint. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "d8546115-187c-4bb2-9617-5f002599e955",
                     *         "svc_uid": "ext-webhook_endpoint-1042",
                     *         "url": "https://hooks.example.com/crm",
                     *         "description": "Sync contacts to the data warehouse",
                     *         "event_types": [
                     *           "contact.created",
                     *           "contact.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": "Example",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The webhook endpoint. */
                        data: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    rotateWebhookEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint, with its new secret. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "d8546115-187c-4bb2-9617-5f002599e955",
                     *         "svc_uid": "ext-webhook_endpoint-1042",
                     *         "url": "https://hooks.example.com/crm",
                     *         "description": "Sync contacts to the data warehouse",
                     *         "event_types": [
                     *           "contact.created",
                     *           "contact.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": "Example",
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The answer. */
                        data: components["schemas"]["WebhookEndpointCreated"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Page size (default 50). */
                limit?: number;
                /** @description Opaque cursor: the previous page's next_cursor, with the same query. */
                cursor?: string;
                /** @description Comma-separated keys, '-' for descending. Keys: created_at. Default: -created_at. */
                sort?: string;
                /** @description Lower bound (inclusive) on created_at. */
                since?: string;
                /** @description Upper bound (exclusive) on created_at. */
                until?: string;
                /** @description Only rows with updated_at strictly after this. */
                updated_since?: string;
                /** @description Equality filter on endpoint_id. */
                endpoint_id?: string;
                /** @description Equality filter on event_type. */
                event_type?: string;
                /** @description Equality filter on status. */
                status?: "pending" | "succeeded" | "failed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "e31ebfc0-211d-4246-8953-4989cc91f49d",
                     *           "svc_uid": "ext-webhook_delivery-1042",
                     *           "endpoint_id": "b6bd2887-32d4-478e-a090-0666331659d1",
                     *           "event_id": "def6e98c-997c-4a9c-a52f-6125b6388ca5",
                     *           "event_type": "contact.created",
                     *           "payload": {
                     *             "type": "contact.created",
                     *             "timestamp": "2026-03-02T09:30:00.000Z",
                     *             "data": {
                     *               "id": "0195a7c4-5b1e-7c3a-9d2f-6e8b1a2c3d4e"
                     *             }
                     *           },
                     *           "status": "succeeded",
                     *           "attempts": 1,
                     *           "next_attempt_at": "2026-03-02T09:30:00Z",
                     *           "last_attempt_at": "2026-03-02T09:30:00Z",
                     *           "last_status_code": 200,
                     *           "last_error": "Example",
                     *           "last_duration_ms": 84,
                     *           "attempt_log": [
                     *             {
                     *               "attempt": 1,
                     *               "at": "2026-03-02T09:30:00.120Z",
                     *               "status_code": 503,
                     *               "duration_ms": 212,
                     *               "error": "answered 503"
                     *             },
                     *             {
                     *               "attempt": 2,
                     *               "at": "2026-03-02T09:30:05.310Z",
                     *               "status_code": 200,
                     *               "duration_ms": 84,
                     *               "error": null
                     *             }
                     *           ],
                     *           "created_at": "2026-03-02T09:30:00Z",
                     *           "updated_at": "2026-03-02T09:30:00Z"
                     *         }
                     *       ],
                     *       "next_cursor": "eyJrIjpbIjIwMjYtMDMtMDJUMDk6MzA6MDBaIl19.c2lnbmF0dXJlLW9mLXRoZS1jdXJzb3I",
                     *       "has_more": true
                     *     }
                     */
                    "application/json": {
                        /** @description The records of this page, at most `limit`. */
                        data: components["schemas"]["WebhookDelivery"][];
                        /** @description Pass as `cursor` (with the same query) for the next page; null on the last page. */
                        next_cursor: string | null;
                        /** @description Whether another page follows. */
                        has_more: boolean;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    getWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook_delivery. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e31ebfc0-211d-4246-8953-4989cc91f49d",
                     *         "svc_uid": "ext-webhook_delivery-1042",
                     *         "endpoint_id": "b6bd2887-32d4-478e-a090-0666331659d1",
                     *         "event_id": "def6e98c-997c-4a9c-a52f-6125b6388ca5",
                     *         "event_type": "contact.created",
                     *         "payload": {
                     *           "type": "contact.created",
                     *           "timestamp": "2026-03-02T09:30:00.000Z",
                     *           "data": {
                     *             "id": "0195a7c4-5b1e-7c3a-9d2f-6e8b1a2c3d4e"
                     *           }
                     *         },
                     *         "status": "succeeded",
                     *         "attempts": 1,
                     *         "next_attempt_at": "2026-03-02T09:30:00Z",
                     *         "last_attempt_at": "2026-03-02T09:30:00Z",
                     *         "last_status_code": 200,
                     *         "last_error": "Example",
                     *         "last_duration_ms": 84,
                     *         "attempt_log": [
                     *           {
                     *             "attempt": 1,
                     *             "at": "2026-03-02T09:30:00.120Z",
                     *             "status_code": 503,
                     *             "duration_ms": 212,
                     *             "error": "answered 503"
                     *           },
                     *           {
                     *             "attempt": 2,
                     *             "at": "2026-03-02T09:30:05.310Z",
                     *             "status_code": 200,
                     *             "duration_ms": 84,
                     *             "error": null
                     *           }
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The webhook delivery. */
                        data: components["schemas"]["WebhookDelivery"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    retryWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: components["parameters"]["Id"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, pending. */
            200: {
                headers: {
                    /** @description Per-key budget per minute. */
                    "RateLimit-Limit"?: number;
                    /** @description Requests left in the binding window. */
                    "RateLimit-Remaining"?: number;
                    /** @description Seconds until the binding window is fully open again. */
                    "RateLimit-Reset"?: number;
                    /** @description The request id, also in every error body. */
                    "X-Request-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": {
                     *         "id": "e31ebfc0-211d-4246-8953-4989cc91f49d",
                     *         "svc_uid": "ext-webhook_delivery-1042",
                     *         "endpoint_id": "b6bd2887-32d4-478e-a090-0666331659d1",
                     *         "event_id": "def6e98c-997c-4a9c-a52f-6125b6388ca5",
                     *         "event_type": "contact.created",
                     *         "payload": {
                     *           "type": "contact.created",
                     *           "timestamp": "2026-03-02T09:30:00.000Z",
                     *           "data": {
                     *             "id": "0195a7c4-5b1e-7c3a-9d2f-6e8b1a2c3d4e"
                     *           }
                     *         },
                     *         "status": "pending",
                     *         "attempts": 1,
                     *         "next_attempt_at": "2026-03-02T09:30:00Z",
                     *         "last_attempt_at": "2026-03-02T09:30:00Z",
                     *         "last_status_code": 200,
                     *         "last_error": "Example",
                     *         "last_duration_ms": 84,
                     *         "attempt_log": [
                     *           {
                     *             "attempt": 1,
                     *             "at": "2026-03-02T09:30:00.120Z",
                     *             "status_code": 503,
                     *             "duration_ms": 212,
                     *             "error": "answered 503"
                     *           },
                     *           {
                     *             "attempt": 2,
                     *             "at": "2026-03-02T09:30:05.310Z",
                     *             "status_code": 200,
                     *             "duration_ms": 84,
                     *             "error": null
                     *           }
                     *         ],
                     *         "created_at": "2026-03-02T09:30:00Z",
                     *         "updated_at": "2026-03-02T09:30:00Z"
                     *       }
                     *     }
                     */
                    "application/json": {
                        /** @description The answer. */
                        data: components["schemas"]["WebhookDelivery"];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["Internal"];
            503: components["responses"]["Unavailable"];
            504: components["responses"]["Timeout"];
        };
    };
    trackOpen: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The signed token messaging put in the email (20 to 128 base64url characters); it is the only credential.
                 * @example b3BlbjoxOjRmMmE5YzEwLWU1YjctNDNkOS05YTFmLWM3ZDJlOGI0NjYwMQ
                 */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A transparent 1×1 GIF. */
            200: {
                headers: {
                    /** @description Never cached, so every open or click reaches the server. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/gif": string;
                };
            };
            /** @description A forged, unknown or malformed token: nothing is recorded. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "no such tracking link",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Another error, as the error envelope: 503 while messaging is unavailable, 504 when it misses its deadline. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unavailable",
                     *         "message": "a backing service is unavailable; retry after 1 second",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    trackClick: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The signed token messaging put in the email (20 to 128 base64url characters); it is the only credential.
                 * @example b3BlbjoxOjRmMmE5YzEwLWU1YjctNDNkOS05YTFmLWM3ZDJlOGI0NjYwMQ
                 */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description To the original link. */
            302: {
                headers: {
                    /** @description Never cached, so every open or click reaches the server. */
                    "Cache-Control"?: string;
                    /** @description The link's target. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A forged, unknown or malformed token: nothing is recorded. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "no such tracking link",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Another error, as the error envelope: 503 while messaging is unavailable, 504 when it misses its deadline. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unavailable",
                     *         "message": "a backing service is unavailable; retry after 1 second",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unsubscribePage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The signed token messaging put in the email (20 to 128 base64url characters); it is the only credential.
                 * @example b3BlbjoxOjRmMmE5YzEwLWU1YjctNDNkOS05YTFmLWM3ZDJlOGI0NjYwMQ
                 */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The confirmation page, with a form that posts List-Unsubscribe=One-Click. */
            200: {
                headers: {
                    /** @description Never cached, so every open or click reaches the server. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                     *     <meta name="robots" content="noindex"><title>Unsubscribe</title>
                     *     <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem}</style>
                     *     </head><body><h1>Unsubscribe</h1><p>Stop receiving these emails at this address?</p>
                     *     <form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form></body></html>
                     */
                    "text/html": string;
                };
            };
            /** @description A forged, unknown or malformed token: nothing is recorded. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "no such tracking link",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Another error, as the error envelope: 503 while messaging is unavailable, 504 when it misses its deadline. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unavailable",
                     *         "message": "a backing service is unavailable; retry after 1 second",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unsubscribe: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The signed token messaging put in the email (20 to 128 base64url characters); it is the only credential.
                 * @example b3BlbjoxOjRmMmE5YzEwLWU1YjctNDNkOS05YTFmLWM3ZDJlOGI0NjYwMQ
                 */
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "List-Unsubscribe": "One-Click"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /**
                     * @description Always One-Click (RFC 8058).
                     * @enum {string}
                     */
                    "List-Unsubscribe": "One-Click";
                };
            };
        };
        responses: {
            /** @description The address is unsubscribed. */
            200: {
                headers: {
                    /** @description Never cached, so every open or click reaches the server. */
                    "Cache-Control"?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
                     *     <meta name="robots" content="noindex"><title>Unsubscribed</title>
                     *     <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}button{font-size:1rem;padding:.6rem 1.2rem}</style>
                     *     </head><body><h1>You are unsubscribed</h1><p>You will not receive these emails any more.</p></body></html>
                     */
                    "text/html": string;
                };
            };
            /** @description The body is not List-Unsubscribe=One-Click. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "invalid_request",
                     *         "message": "an unsubscribe is a POST of List-Unsubscribe=One-Click (RFC 8058)",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A forged, unknown or malformed token: nothing is recorded. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "not_found",
                     *         "message": "no such tracking link",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Another error, as the error envelope: 503 while messaging is unavailable, 504 when it misses its deadline. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": {
                     *         "code": "unavailable",
                     *         "message": "a backing service is unavailable; retry after 1 second",
                     *         "request_id": "req_0b6c1f3e-2f4a-4d8e-9c1b-5a7d2e9f4c30"
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
