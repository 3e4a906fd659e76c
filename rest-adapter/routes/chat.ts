import { defineOperations } from '../operation.ts';

// spec 002, "Chat": GET/POST /chat/threads, GET /chat/threads/{thread_id},
// POST /chat/threads/{thread_id}/messages, PATCH /chat/threads/{thread_id}/messages/{message_id},
// GET/POST /chat/threads/{thread_id}/participants; designed here ("not shown"): PATCH
// /chat/threads/{thread_id} and GET /chat/threads/{thread_id}/messages.

const USER_FIELDS = /* GraphQL */ `
  fragment ChatUserFields on User { id first_name: firstName last_name: lastName email }`;

/** A participant's own fields (the participants route and a thread's `participants` add the user by their own `with`). */
const PARTICIPANT_SCALAR_FIELDS = /* GraphQL */ `
  fragment ChatParticipantScalarFields on ChatParticipant {
    id
    thread_id: threadId
    user_id: userId
    created_by_id: createdById
    created_at: createdAt
  }`;

const PARTICIPANT_FIELDS = /* GraphQL */ `
  fragment ChatParticipantFields on ChatParticipant {
    ...ChatParticipantScalarFields
    user @include(if: $with_user) { ...ChatUserFields }
  }
  ${PARTICIPANT_SCALAR_FIELDS}
  ${USER_FIELDS}`;

const THREAD_FIELDS = /* GraphQL */ `
  fragment ChatThreadFields on ChatThread {
    id
    created_by_id: createdById
    created_at: createdAt
    updated_at: updatedAt
    last_message_created_at: lastMessageCreatedAt
    client_account_id: clientAccountId
    provider_client_account_id: providerClientAccountId
    subject
    relation_type: relationType
    relation_id: relationId
    is_completed: isCompleted
    is_archived: isArchived
    participants @include(if: $with_participants) {
      ...ChatParticipantScalarFields
      user @include(if: $with_participants_user) { ...ChatUserFields }
    }
  }
  ${PARTICIPANT_SCALAR_FIELDS}
  ${USER_FIELDS}`;

const MESSAGE_FIELDS = /* GraphQL */ `
  fragment ChatMessageFields on ChatMessage {
    id
    thread_id: threadId
    from_user_id: fromUserId
    message
    is_draft: isDraft
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    action_items: actionItems { type needs_approval: needsApproval id }
    action_mode: actionMode
    action_error: actionError
    tool_calls: toolCalls { id type function { name arguments } }
    tool_results: toolResults { tool_call_id: toolCallId name is_error: isError content }
    previews { tool_call_id: toolCallId type id operation need_approval: needApproval reasons }
    tool_mode: toolMode
    approves_message_id: approvesMessageId
    approved_by_message_id: approvedByMessageId
    attachments {
      id
      file_name: fileName
      content_type: contentType
      size
      page_count: pageCount
      created_at: createdAt
      created_by_id: createdById
      thumbnail_url: thumbnailUrl
      preview_url: previewUrl
      download_url: downloadUrl
      original_url: originalUrl
    }
    from_user: fromUser @include(if: $with_from_user) { ...ChatUserFields }
  }
  ${USER_FIELDS}`;

const THREAD_WITH = { allowed: ['participants', 'participants.user'] } as const;
const MESSAGE_WITH = { allowed: ['from_user'] } as const;
const PARTICIPANT_WITH = { allowed: ['user'] } as const;

/** What a published message sets off (src/assistant/chat-listener.ts). */
const SETS_OFF =
  'Before this answers, a ```codeaction block (a GraphQL operation) is run in preview and written when it has no errors and nothing needs approval (deletes, postings, finalized documents, mail), ' +
  'an ```approvecodeaction block writes the thread’s last code action, and approves_message_id writes the approved preview’s tool calls: each result is a new message of the thread (from_user_id null). ' +
  '@assistant in the text asks the assistant: its PREVIEW reply (tool_calls, tool_results, previews) follows later, and a WRITE message at once when nothing needs approval.';

/** Who may use a thread, as every chat summary says it. */
const ACCESS = "Needs access to the thread's client account or to its provider account while that serves the client (else 403); 404 for no thread.";
/** How responses show message text. */
const HIDDEN = 'Message text shows the contents of ```codeaction and ```coderesult blocks as [hidden]; drafts are visible to their sender and creator only.';

export const chatOperations = defineOperations([
  {
    method: 'GET',
    path: '/chat/threads',
    summary:
      "List chat threads: of client_account_id, or without it of every account the caller may use (and threads of accounts a provider account of the caller's serves, where that provider takes part). " +
      'Filters provider_client_account_id, relation_type, relation_id, is_completed, is_archived, free_text (every word, case-insensitive and part of a word, in the subject or a message as shown); ' +
      'order_by fields id, created_at, updated_at, last_message_created_at, subject (- descending; default -last_message_created_at,-created_at); page 1, per_page 100 (at most 1000).',
    document: /* GraphQL */ `
      query ListChatThreads($clientAccountId: Int, $providerClientAccountId: Int, $relationType: String, $relationId: Int, $freeText: String,
                            $isCompleted: Boolean, $isArchived: Boolean, $orderBy: [String!], $page: Int, $perPage: Int) {
        chatThreads(clientAccountId: $clientAccountId, providerClientAccountId: $providerClientAccountId, relationType: $relationType,
                    relationId: $relationId, freeText: $freeText, isCompleted: $isCompleted, isArchived: $isArchived, orderBy: $orderBy,
                    page: $page, perPage: $perPage) {
          data: nodes { ...ChatThreadFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${THREAD_FIELDS}`,
    with: THREAD_WITH,
  },
  {
    method: 'POST',
    path: '/chat/threads',
    summary:
      'Create a chat thread (client_account_id required; provider_client_account_id must serve it) with its messages (each a message body as POST …/messages takes) in one transaction; ' +
      'the caller needs access to client_account_id or to provider_client_account_id, and becomes the first participant. 201.',
    document: /* GraphQL */ `
      mutation CreateChatThread($input: CreateChatThreadInput!) { createChatThread(input: $input) { ...ChatThreadFields } }
      ${THREAD_FIELDS}`,
    status: 201,
    with: THREAD_WITH,
  },
  {
    method: 'GET',
    path: '/chat/threads/:thread_id',
    summary: `Get one chat thread. ${ACCESS}`,
    document: /* GraphQL */ `
      query GetChatThread($threadId: Int!) { chatThread(id: $threadId) { ...ChatThreadFields } }
      ${THREAD_FIELDS}`,
    with: THREAD_WITH,
  },
  {
    method: 'PATCH',
    path: '/chat/threads/:thread_id',
    summary: `Update a chat thread (designed here): subject, is_completed, is_archived; omitted fields keep their value. ${ACCESS}`,
    document: /* GraphQL */ `
      mutation UpdateChatThread($threadId: Int!, $input: UpdateChatThreadInput!) { updateChatThread(id: $threadId, input: $input) { ...ChatThreadFields } }
      ${THREAD_FIELDS}`,
    with: THREAD_WITH,
  },
  {
    method: 'GET',
    path: '/chat/threads/:thread_id/messages',
    summary: `List the messages of a thread (designed here): oldest first (order_by created_at, or -created_at for newest first), page 1, per_page 100 (at most 1000). ${HIDDEN} ${ACCESS}`,
    document: /* GraphQL */ `
      query ListChatMessages($threadId: Int!, $orderBy: [String!], $page: Int, $perPage: Int) {
        chatMessages(threadId: $threadId, orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...ChatMessageFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${MESSAGE_FIELDS}`,
    with: MESSAGE_WITH,
  },
  {
    method: 'POST',
    path: '/chat/threads/:thread_id/messages',
    summary:
      'Post a message: message (required unless approves_message_id or attachment_ids is given), is_draft (false), approves_message_id (a PREVIEW message of the thread not yet approved, else 400), ' +
      'attachment_ids (files uploaded with type CHAT_ATTACHMENT, images or PDF, by the caller for the thread’s client account, not yet attached; else 403). The caller is its sender and a participant. 201. ' +
      `${HIDDEN} ${ACCESS} ${SETS_OFF}`,
    document: /* GraphQL */ `
      mutation CreateChatMessage($threadId: Int!, $input: CreateChatMessageInput!) { createChatMessage(threadId: $threadId, input: $input) { ...ChatMessageFields } }
      ${MESSAGE_FIELDS}`,
    status: 201,
    with: MESSAGE_WITH,
  },
  {
    method: 'PATCH',
    path: '/chat/threads/:thread_id/messages/:message_id',
    summary:
      'Edit a message: message and is_draft only; the caller becomes from_user_id. A draft may be edited by its sender or creator and sent (is_draft false: created_at becomes the sending time); ' +
      'a sent message only by its sender (else 403) and never back to a draft (400); messages with tool calls or code actions are not edited (400). 201. ' +
      `${HIDDEN} ${ACCESS}`,
    document: /* GraphQL */ `
      mutation UpdateChatMessage($threadId: Int!, $messageId: Int!, $input: UpdateChatMessageInput!) {
        updateChatMessage(threadId: $threadId, messageId: $messageId, input: $input) { ...ChatMessageFields }
      }
      ${MESSAGE_FIELDS}`,
    status: 201,
    with: MESSAGE_WITH,
  },
  {
    method: 'GET',
    path: '/chat/threads/:thread_id/participants',
    summary: `The participants of a thread as an array, in the order they joined (the creator, senders of messages, assignees of a task's thread and those added). ${ACCESS}`,
    document: /* GraphQL */ `
      query ListChatParticipants($threadId: Int!) { chatParticipants(threadId: $threadId) { nodes { ...ChatParticipantFields } } }
      ${PARTICIPANT_FIELDS}`,
    with: PARTICIPANT_WITH,
  },
  {
    method: 'POST',
    path: '/chat/threads/:thread_id/participants',
    summary:
      'Add a participant: user_id (required) must have access to the thread’s client account or its serving provider account (else 400). Adding one already there answers 201 with that participant unchanged. ' +
      ACCESS,
    document: /* GraphQL */ `
      mutation AddChatParticipant($threadId: Int!, $input: AddChatParticipantInput!) { addChatParticipant(threadId: $threadId, input: $input) { ...ChatParticipantFields } }
      ${PARTICIPANT_FIELDS}`,
    status: 201,
    with: PARTICIPANT_WITH,
  },
]);
