"""factory_boy factories. Entities are created through the service so tokens are real; the
plain-text token of an entity made here is on `entity.plain_token`."""

from datetime import date

import factory

from merchants.models import Entity, EntityType, Merchant
from merchants.services import entity_create
from terminals.models import Terminal


class EntityFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Entity

    entity_type = EntityType.PARTICIPATOR
    entity_id = factory.Sequence(lambda n: f"BANK{n:04d}")
    name = factory.Faker("company")
    owner = None

    @classmethod
    def _create(cls, model_class, *args, **kwargs):  # type: ignore[no-untyped-def]
        entity, token = entity_create(**kwargs)
        entity.plain_token = token
        return entity


class ParticipatorFactory(EntityFactory):
    pass


class MerchantFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Merchant

    merchant_id = factory.Sequence(lambda n: f"{20000000 + n}")
    participator = factory.SubFactory(ParticipatorFactory)
    entity = factory.LazyAttribute(
        lambda o: EntityFactory(
            entity_type=EntityType.MERCHANT,
            entity_id=o.merchant_id[-8:].rjust(8, "0"),
            owner=o.participator,
        )
    )
    name = factory.Faker("company")
    business = "DEMO SHOP"
    street = "1 Main Street"
    postcode = "10115"
    city = "Berlin"
    state = "Berlin"
    country = "DE"
    phone = "+49-30-1234567"
    mmcc = "5411"
    vmcc = "5411"
    pf_id = "PF000000001"
    corporate_status = "0"
    date_designed = date(2024, 1, 15)


class TerminalFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Terminal

    terminal_id = factory.Sequence(lambda n: f"T{n:07d}")
    merchant = factory.SubFactory(MerchantFactory)
    name = "Front desk"
    device_id = "123456789"
    device_info = "Demo Terminal"
    pin_entry_capability = "1"
