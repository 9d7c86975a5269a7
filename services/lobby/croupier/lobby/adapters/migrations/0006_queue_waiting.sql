-- The players registered in each queue's filling tournament, as the lobby last counted
-- them (croupier.lobby.service.queues): ListQueues reads it instead of asking the director,
-- kept current from the joins and leaves and from croupier.tournament.events.
ALTER TABLE tournament_queues ADD COLUMN waiting integer NOT NULL DEFAULT 0;
