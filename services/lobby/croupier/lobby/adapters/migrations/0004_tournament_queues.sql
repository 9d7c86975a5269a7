-- Sit & Go and Spin queues (croupier.lobby.service.queues): the tournament each queue is
-- filling now. The director keeps who is registered; a position only moves forward.
CREATE TABLE tournament_queues (
    queue_id      text PRIMARY KEY,
    sequence      bigint NOT NULL,
    tournament_id text NOT NULL
);
